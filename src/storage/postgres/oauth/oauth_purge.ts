/**
 * @module Ending OAuth rows in PostgreSQL: revoking a grant with its access tokens, removing a
 * client with everything it holds, and the purge of what is dead (unused clients, expired grants,
 * refresh tokens, access tokens, codes and pairing codes). Each runs inside the caller's write.
 */
import type { OAuthPurged, PurgeTimes } from "../../../core/ports/oauth_store.ts";
import type { Queries } from "../connection.ts";

/** Whether the operator revoked one of the grant's access tokens (`engram tokens revoke`). */
export async function accessTokenRevoked(sql: Queries, grantId: string): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM oauth_refresh_tokens r JOIN tokens t ON t.id = r.access_token_id
     WHERE r.grant_id = ${grantId} AND t.revoked_at IS NOT NULL LIMIT 1`;
  return rows.length > 0;
}

/** Revokes a grant and its access tokens; whether this call revoked the grant. */
export async function revokeGrant(sql: Queries, grantId: string, at: string): Promise<boolean> {
  const changed = await sql`
    UPDATE oauth_grants SET revoked_at = ${at} WHERE id = ${grantId} AND revoked_at IS NULL`;
  await sql`
    UPDATE tokens SET revoked_at = ${at} WHERE revoked_at IS NULL
       AND id IN (SELECT access_token_id FROM oauth_refresh_tokens WHERE grant_id = ${grantId})`;
  return changed.count > 0;
}

/** Deletes the grants `ids` with their refresh tokens, access tokens and codes; tokens deleted. */
async function deleteGrants(sql: Queries, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const tokens = await sql`
    DELETE FROM tokens WHERE id IN (
      SELECT access_token_id FROM oauth_refresh_tokens WHERE grant_id = ANY(${ids}::text[]))`;
  await sql`DELETE FROM oauth_refresh_tokens WHERE grant_id = ANY(${ids}::text[])`;
  await sql`DELETE FROM oauth_codes WHERE grant_id = ANY(${ids}::text[])`;
  await sql`DELETE FROM oauth_grants WHERE id = ANY(${ids}::text[])`;
  return tokens.count;
}

/** Deletes a client and everything it holds; returns how many access tokens went with it. */
export async function deleteClient(sql: Queries, clientId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`
    SELECT count(*) AS n FROM tokens WHERE oauth_client_id = ${clientId}`;
  const grants = await sql<{ id: string }[]>`
    SELECT id FROM oauth_grants WHERE client_id = ${clientId}`;
  await deleteGrants(sql, grants.map((g) => g.id));
  await sql`DELETE FROM oauth_codes WHERE client_id = ${clientId}`;
  await sql`DELETE FROM tokens WHERE oauth_client_id = ${clientId}`;
  await sql`DELETE FROM oauth_clients WHERE client_id = ${clientId}`;
  return n;
}

/** Removes what is dead as of `times` (see PurgeTimes). */
export async function purge(sql: Queries, times: PurgeTimes): Promise<OAuthPurged> {
  // Before expired access tokens go: an operator's revocation of one must keep ending its grant.
  await sql`
    UPDATE oauth_grants SET revoked_at = ${times.now} WHERE revoked_at IS NULL AND id IN (
      SELECT r.grant_id FROM oauth_refresh_tokens r JOIN tokens t ON t.id = r.access_token_id
       WHERE t.revoked_at IS NOT NULL)`;
  const stale = await sql<{ client_id: string }[]>`
    SELECT client_id FROM oauth_clients
     WHERE coalesce(last_used_at, created_at) < ${times.clientsUnusedBefore}`;
  let accessTokens = 0;
  for (const { client_id } of stale) accessTokens += await deleteClient(sql, client_id);
  const dead = await sql<{ id: string }[]>`
    SELECT id FROM oauth_grants WHERE expires_at <= ${times.now}`;
  accessTokens += await deleteGrants(sql, dead.map((g) => g.id));
  await sql`DELETE FROM oauth_refresh_tokens WHERE expires_at <= ${times.now}`;
  accessTokens += (await sql`
    DELETE FROM tokens WHERE oauth_client_id IS NOT NULL AND expires_at <= ${times.now}`).count;
  const codes = await sql`DELETE FROM oauth_codes WHERE expires_at < ${times.codesExpiredBefore}`;
  const pairingCodes = await sql`
    DELETE FROM oauth_pairing_codes WHERE expires_at <= ${times.now}`;
  return {
    clients: stale.length,
    codes: codes.count,
    grants: dead.length,
    pairingCodes: pairingCodes.count,
    accessTokens,
  };
}

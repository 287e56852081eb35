/**
 * @module Ending OAuth rows in SQLite: revoking a grant with its access tokens, removing a client
 * with everything it holds, and the purge of what is dead (unused clients, expired grants, refresh
 * tokens, access tokens, codes and pairing codes). Each runs inside the caller's write.
 */
import type { OAuthPurged, PurgeTimes } from "../../../core/ports/oauth_store.ts";
import type { Prepares } from "../database.ts";

/** Whether the operator revoked one of the grant's access tokens (`engram tokens revoke`). */
export function accessTokenRevoked(db: Prepares, grantId: string): boolean {
  return db.prepare(
    `SELECT 1 FROM oauth_refresh_tokens r JOIN tokens t ON t.id = r.access_token_id
     WHERE r.grant_id = ? AND t.revoked_at IS NOT NULL LIMIT 1`,
  ).get(grantId) !== undefined;
}

/** Revokes a grant and its access tokens; whether this call revoked the grant. */
export function revokeGrant(db: Prepares, grantId: string, at: string): boolean {
  const changed = db.prepare(
    "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
  ).run(at, grantId).changes > 0;
  db.prepare(
    `UPDATE tokens SET revoked_at = ? WHERE revoked_at IS NULL
     AND id IN (SELECT access_token_id FROM oauth_refresh_tokens WHERE grant_id = ?)`,
  ).run(at, grantId);
  return changed;
}

/**
 * Deletes grants (with their refresh tokens, access tokens and codes) chosen by `where`; returns
 * how many grants and access tokens went.
 */
function deleteGrants(
  db: Prepares,
  where: string,
  ...params: string[]
): { grants: number; tokens: number } {
  const ids = (db.prepare(`SELECT id FROM oauth_grants WHERE ${where}`).all(...params) as {
    id: string;
  }[]).map((r) => r.id);
  let tokens = 0;
  for (const id of ids) {
    tokens += Number(
      db.prepare(
        "DELETE FROM tokens WHERE id IN (SELECT access_token_id FROM oauth_refresh_tokens WHERE grant_id = ?)",
      ).run(id).changes,
    );
    db.prepare("DELETE FROM oauth_refresh_tokens WHERE grant_id = ?").run(id);
    db.prepare("DELETE FROM oauth_codes WHERE grant_id = ?").run(id);
    db.prepare("DELETE FROM oauth_grants WHERE id = ?").run(id);
  }
  return { grants: ids.length, tokens };
}

/** Deletes a client and everything it holds; returns how many access tokens went with it. */
export function deleteClient(db: Prepares, clientId: string): number {
  const { n } = db.prepare("SELECT count(*) AS n FROM tokens WHERE oauth_client_id = ?")
    .get(clientId) as { n: number };
  deleteGrants(db, "client_id = ?", clientId);
  db.prepare("DELETE FROM oauth_codes WHERE client_id = ?").run(clientId);
  db.prepare("DELETE FROM tokens WHERE oauth_client_id = ?").run(clientId);
  db.prepare("DELETE FROM oauth_clients WHERE client_id = ?").run(clientId);
  return n;
}

/** Removes what is dead as of `times` (see PurgeTimes). */
export function purge(db: Prepares, times: PurgeTimes): OAuthPurged {
  // Before expired access tokens go: an operator's revocation of one must keep ending its grant.
  db.prepare(
    `UPDATE oauth_grants SET revoked_at = ? WHERE revoked_at IS NULL AND id IN (
       SELECT r.grant_id FROM oauth_refresh_tokens r JOIN tokens t ON t.id = r.access_token_id
       WHERE t.revoked_at IS NOT NULL)`,
  ).run(times.now);
  const stale = (db.prepare(
    "SELECT client_id FROM oauth_clients WHERE coalesce(last_used_at, created_at) < ?",
  ).all(times.clientsUnusedBefore) as { client_id: string }[]).map((r) => r.client_id);
  let accessTokens = 0;
  for (const id of stale) accessTokens += deleteClient(db, id);
  const dead = deleteGrants(db, "expires_at <= ?", times.now);
  accessTokens += dead.tokens;
  db.prepare("DELETE FROM oauth_refresh_tokens WHERE expires_at <= ?").run(times.now);
  accessTokens += Number(
    db.prepare("DELETE FROM tokens WHERE oauth_client_id IS NOT NULL AND expires_at <= ?")
      .run(times.now).changes,
  );
  const codes = db.prepare("DELETE FROM oauth_codes WHERE expires_at < ?")
    .run(times.codesExpiredBefore).changes;
  const pairingCodes = db.prepare("DELETE FROM oauth_pairing_codes WHERE expires_at <= ?")
    .run(times.now).changes;
  return {
    clients: stale.length,
    codes: Number(codes),
    grants: dead.grants,
    pairingCodes: Number(pairingCodes),
    accessTokens,
  };
}

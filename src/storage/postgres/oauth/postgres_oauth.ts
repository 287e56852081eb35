/**
 * @module The OAuthStore port over PostgreSQL: `oauth_clients`, `oauth_codes`, `oauth_grants`,
 * `oauth_refresh_tokens` and `oauth_pairing_codes`, and the access tokens the authorization server
 * issues, which live in `tokens` beside the static ones. Single use is one
 * `UPDATE … WHERE used_at IS NULL`: of two nodes exchanging the same code, the second waits on the
 * row and then finds it used.
 */
import { EngramError } from "../../../core/errors.ts";
import type {
  AuthorizationCodeRecord,
  ListedOAuthClient,
  OAuthGrantRecord,
  OAuthPurged,
  OAuthStore,
  PairingCodeRecord,
  PurgeTimes,
  RefreshTokenRecord,
  StoredOAuthClient,
} from "../../../core/ports/oauth_store.ts";
import type { StoredToken } from "../../../core/ports/token_store.ts";
import {
  type ClientRow,
  clientRow,
  type CodeRow,
  codeRow,
  type GrantRow,
  grantRow,
  type PairingRow,
  pairingRow,
  type RefreshRow,
  refreshRow,
  toClient,
  toCode,
  toGrant,
  toPairing,
  toRefresh,
} from "../../sqlite/oauth/oauth_rows.ts";
import type { PostgresConnection, Queries } from "../connection.ts";
import { insertToken } from "../postgres_tokens.ts";
import { accessTokenRevoked, deleteClient, purge, revokeGrant } from "./oauth_purge.ts";

const CLIENT_INSERT = `INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris,
  token_endpoint_auth_method, grant_types, secret_hash, fetched_at, created_at, last_used_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/** The authorization server's rows over one pool. */
export class PostgresOAuthStore implements OAuthStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  insertClient(client: StoredOAuthClient): Promise<void> {
    return this.#conn.write(async (sql) => {
      const inserted = await sql.unsafe(
        `${CLIENT_INSERT} ON CONFLICT (client_id) DO NOTHING`,
        clientRow(client),
      );
      if (inserted.count === 0) {
        throw new EngramError("conflict", `OAuth client ${client.client_id} already exists`);
      }
    });
  }

  saveMetadataClient(client: StoredOAuthClient): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql.unsafe(
        `${CLIENT_INSERT}
         ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name,
           redirect_uris = excluded.redirect_uris,
           token_endpoint_auth_method = excluded.token_endpoint_auth_method,
           grant_types = excluded.grant_types, fetched_at = excluded.fetched_at
         WHERE oauth_clients.kind = 'metadata_document'`,
        clientRow(client),
      );
    });
  }

  findClient(clientId: string): Promise<StoredOAuthClient | null> {
    return this.#conn.read((sql) => findClient(sql, clientId));
  }

  countClients(): Promise<number> {
    return this.#conn.read(async (sql) => {
      const [{ n }] = await sql<{ n: number }[]>`SELECT count(*) AS n FROM oauth_clients`;
      return n;
    });
  }

  touchClient(clientId: string, at: string): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql`UPDATE oauth_clients SET last_used_at = ${at}
                 WHERE client_id = ${clientId} AND (last_used_at IS NULL OR last_used_at < ${at})`;
    });
  }

  listClients(at: string): Promise<ListedOAuthClient[]> {
    return this.#conn.read(async (sql) => {
      const rows = await sql<(ClientRow & { access_tokens: number; grants: number })[]>`
        SELECT c.*,
          (SELECT count(*) FROM tokens t WHERE t.oauth_client_id = c.client_id
             AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ${at}))
            AS access_tokens,
          (SELECT count(*) FROM oauth_grants g WHERE g.client_id = c.client_id
             AND g.revoked_at IS NULL AND g.expires_at > ${at}) AS grants
          FROM oauth_clients c ORDER BY c.created_at, c.seq`;
      return rows.map((row) => {
        const { secret_hash: _s, fetched_at: _f, ...client } = toClient(row);
        return { ...client, access_tokens: row.access_tokens, grants: row.grants };
      });
    });
  }

  deleteClient(clientId: string): Promise<{ accessTokens: number } | null> {
    return this.#conn.write(async (sql) => {
      if (!await findClient(sql, clientId)) return null;
      return { accessTokens: await deleteClient(sql, clientId) };
    });
  }

  purge(times: PurgeTimes): Promise<OAuthPurged> {
    return this.#conn.write(async (sql) => {
      return await purge(sql, times);
    });
  }

  insertCode(code: AuthorizationCodeRecord): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql.unsafe(
        `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource,
           tier, brains, tools, proof_id, created_at, expires_at, used_at, grant_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        codeRow(code),
      );
    });
  }

  consumeCode(
    codeHash: string,
    at: string,
  ): Promise<{ code: AuthorizationCodeRecord; first: boolean } | null> {
    return this.#conn.write(async (sql) => {
      const [used] = await sql<CodeRow[]>`
        UPDATE oauth_codes SET used_at = ${at} WHERE code_hash = ${codeHash} AND used_at IS NULL
        RETURNING *`;
      if (used) return { code: toCode(used), first: true };
      const [row] = await sql<CodeRow[]>`SELECT * FROM oauth_codes WHERE code_hash = ${codeHash}`;
      return row ? { code: toCode(row), first: false } : null;
    });
  }

  createGrant(
    input: {
      grant: OAuthGrantRecord;
      access: StoredToken;
      refresh: RefreshTokenRecord;
      codeHash: string;
    },
  ): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql.unsafe(
        `INSERT INTO oauth_grants (id, client_id, resource, tier, brains, tools, proof_id,
           created_at, expires_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        grantRow(input.grant),
      );
      await insertToken(sql, input.access);
      await insertRefresh(sql, input.refresh);
      await sql`UPDATE oauth_codes SET grant_id = ${input.grant.id}
                 WHERE code_hash = ${input.codeHash}`;
    });
  }

  findGrant(grantId: string): Promise<OAuthGrantRecord | null> {
    return this.#conn.read((sql) => findGrant(sql, grantId));
  }

  useRefreshToken(
    tokenHash: string,
    at: string,
  ): Promise<
    | { refresh: RefreshTokenRecord; grant: OAuthGrantRecord; first: boolean; revoked: boolean }
    | null
  > {
    return this.#conn.write(async (sql) => {
      const [used] = await sql<RefreshRow[]>`
        UPDATE oauth_refresh_tokens SET used_at = ${at}
         WHERE token_hash = ${tokenHash} AND used_at IS NULL RETURNING *`;
      const row = used ??
        (await sql<RefreshRow[]>`
          SELECT * FROM oauth_refresh_tokens WHERE token_hash = ${tokenHash}`)[0];
      if (!row) return null;
      const grant = (await findGrant(sql, row.grant_id))!;
      return {
        refresh: toRefresh(row),
        grant,
        first: used !== undefined,
        revoked: grant.revoked_at !== null || await accessTokenRevoked(sql, grant.id),
      };
    });
  }

  rotateGrant(
    input: { grantId: string; access: StoredToken; refresh: RefreshTokenRecord },
  ): Promise<void> {
    return this.#conn.write(async (sql) => {
      await insertToken(sql, input.access);
      await insertRefresh(sql, input.refresh);
      await sql`UPDATE oauth_grants SET expires_at = greatest(expires_at, ${input.refresh.expires_at})
                 WHERE id = ${input.grantId}`;
    });
  }

  revokeGrant(grantId: string, at: string): Promise<boolean> {
    return this.#conn.write(async (sql) => {
      return await revokeGrant(sql, grantId, at);
    });
  }

  insertPairingCode(code: PairingCodeRecord): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql.unsafe(
        `INSERT INTO oauth_pairing_codes (id, code_hash, tier, brains, created_at, expires_at,
           used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        pairingRow(code),
      );
    });
  }

  consumePairingCode(codeHash: string, at: string): Promise<PairingCodeRecord | null> {
    return this.#conn.write(async (sql) => {
      const [row] = await sql<PairingRow[]>`
        UPDATE oauth_pairing_codes SET used_at = ${at}
         WHERE code_hash = ${codeHash} AND used_at IS NULL AND expires_at > ${at} RETURNING *`;
      return row ? toPairing(row) : null;
    });
  }
}

async function findClient(sql: Queries, clientId: string): Promise<StoredOAuthClient | null> {
  const [row] = await sql<ClientRow[]>`SELECT * FROM oauth_clients WHERE client_id = ${clientId}`;
  return row ? toClient(row) : null;
}

async function findGrant(sql: Queries, grantId: string): Promise<OAuthGrantRecord | null> {
  const [row] = await sql<GrantRow[]>`SELECT * FROM oauth_grants WHERE id = ${grantId}`;
  return row ? toGrant(row) : null;
}

async function insertRefresh(sql: Queries, refresh: RefreshTokenRecord): Promise<void> {
  await sql.unsafe(
    `INSERT INTO oauth_refresh_tokens (id, token_hash, grant_id, access_token_id, created_at,
       expires_at, used_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    refreshRow(refresh),
  );
}

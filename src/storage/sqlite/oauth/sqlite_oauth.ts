/**
 * @module The OAuthStore port over SQLite: `oauth_clients`, `oauth_codes`, `oauth_grants`,
 * `oauth_refresh_tokens` and `oauth_pairing_codes` (migration 16), and the access tokens the
 * authorization server issues, which live in `tokens` beside the static ones. Single use is one
 * `UPDATE … WHERE used_at IS NULL`: of two processes exchanging the same code, one wins.
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
import type { Prepares } from "../database.ts";
import type { SqliteConnection } from "../sqlite_connection.ts";
import { insertToken } from "../sqlite_tokens.ts";
import { accessTokenRevoked, deleteClient, purge, revokeGrant } from "./oauth_purge.ts";
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
} from "./oauth_rows.ts";

/** The authorization server's rows over one connection. */
export class SqliteOAuthStore implements OAuthStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  insertClient(client: StoredOAuthClient): Promise<void> {
    return this.#conn.write(() => {
      if (findClient(this.#conn, client.client_id)) {
        throw new EngramError("conflict", `OAuth client ${client.client_id} already exists`);
      }
      this.#conn.prepare(
        `INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris, token_endpoint_auth_method, grant_types, secret_hash, fetched_at, created_at, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...clientRow(client));
    });
  }

  saveMetadataClient(client: StoredOAuthClient): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare(
        `INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris, token_endpoint_auth_method, grant_types, secret_hash, fetched_at, created_at, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name,
           redirect_uris = excluded.redirect_uris,
           token_endpoint_auth_method = excluded.token_endpoint_auth_method,
           grant_types = excluded.grant_types, fetched_at = excluded.fetched_at
         WHERE kind = 'metadata_document'`,
      ).run(...clientRow(client));
    });
  }

  findClient(clientId: string): Promise<StoredOAuthClient | null> {
    return this.#conn.read(() => findClient(this.#conn, clientId));
  }

  countClients(): Promise<number> {
    return this.#conn.read(() =>
      (this.#conn.prepare("SELECT count(*) AS n FROM oauth_clients").get() as { n: number }).n
    );
  }

  touchClient(clientId: string, at: string): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare(
        "UPDATE oauth_clients SET last_used_at = ? WHERE client_id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
      ).run(at, clientId, at);
    });
  }

  listClients(at: string): Promise<ListedOAuthClient[]> {
    return this.#conn.read(() => {
      const rows = this.#conn.prepare(
        `SELECT c.*,
           (SELECT count(*) FROM tokens t WHERE t.oauth_client_id = c.client_id
              AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)) AS access_tokens,
           (SELECT count(*) FROM oauth_grants g WHERE g.client_id = c.client_id
              AND g.revoked_at IS NULL AND g.expires_at > ?) AS grants
         FROM oauth_clients c ORDER BY c.created_at, c.rowid`,
      ).all(at, at) as unknown as (ClientRow & { access_tokens: number; grants: number })[];
      return rows.map((row) => {
        const { secret_hash: _s, fetched_at: _f, ...client } = toClient(row);
        return { ...client, access_tokens: row.access_tokens, grants: row.grants };
      });
    });
  }

  deleteClient(clientId: string): Promise<{ accessTokens: number } | null> {
    return this.#conn.write(() => {
      if (!findClient(this.#conn, clientId)) return null;
      this.#conn.invalidates();
      return { accessTokens: deleteClient(this.#conn, clientId) };
    });
  }

  purge(times: PurgeTimes): Promise<OAuthPurged> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      return purge(this.#conn, times);
    });
  }

  insertCode(code: AuthorizationCodeRecord): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare(
        `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, tier, brains, tools, proof_id, created_at, expires_at, used_at, grant_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...codeRow(code));
    });
  }

  consumeCode(
    codeHash: string,
    at: string,
  ): Promise<{ code: AuthorizationCodeRecord; first: boolean } | null> {
    return this.#conn.write(() => {
      const used = this.#conn.prepare(
        "UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL RETURNING *",
      ).get(at, codeHash) as CodeRow | undefined;
      if (used) return { code: toCode(used), first: true };
      const row = this.#conn.prepare("SELECT * FROM oauth_codes WHERE code_hash = ?")
        .get(codeHash) as CodeRow | undefined;
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
    return this.#conn.write(() => {
      this.#conn.invalidates();
      this.#conn.prepare(
        `INSERT INTO oauth_grants (id, client_id, resource, tier, brains, tools, proof_id, created_at, expires_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...grantRow(input.grant));
      insertToken(this.#conn, input.access);
      insertRefresh(this.#conn, input.refresh);
      this.#conn.prepare("UPDATE oauth_codes SET grant_id = ? WHERE code_hash = ?")
        .run(input.grant.id, input.codeHash);
    });
  }

  findGrant(grantId: string): Promise<OAuthGrantRecord | null> {
    return this.#conn.read(() => findGrant(this.#conn, grantId));
  }

  useRefreshToken(
    tokenHash: string,
    at: string,
  ): Promise<
    | { refresh: RefreshTokenRecord; grant: OAuthGrantRecord; first: boolean; revoked: boolean }
    | null
  > {
    return this.#conn.write(() => {
      const used = this.#conn.prepare(
        "UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL RETURNING *",
      ).get(at, tokenHash) as RefreshRow | undefined;
      const row = used ??
        this.#conn.prepare("SELECT * FROM oauth_refresh_tokens WHERE token_hash = ?")
          .get(tokenHash) as RefreshRow | undefined;
      if (!row) return null;
      const grant = findGrant(this.#conn, row.grant_id)!;
      return {
        refresh: toRefresh(row),
        grant,
        first: used !== undefined,
        revoked: grant.revoked_at !== null || accessTokenRevoked(this.#conn, grant.id),
      };
    });
  }

  rotateGrant(
    input: { grantId: string; access: StoredToken; refresh: RefreshTokenRecord },
  ): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      insertToken(this.#conn, input.access);
      insertRefresh(this.#conn, input.refresh);
      this.#conn.prepare("UPDATE oauth_grants SET expires_at = max(expires_at, ?) WHERE id = ?")
        .run(input.refresh.expires_at, input.grantId);
    });
  }

  revokeGrant(grantId: string, at: string): Promise<boolean> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      return revokeGrant(this.#conn, grantId, at);
    });
  }

  insertPairingCode(code: PairingCodeRecord): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare(
        `INSERT INTO oauth_pairing_codes (id, code_hash, tier, brains, created_at, expires_at, used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(...pairingRow(code));
    });
  }

  consumePairingCode(codeHash: string, at: string): Promise<PairingCodeRecord | null> {
    return this.#conn.write(() => {
      const row = this.#conn.prepare(
        `UPDATE oauth_pairing_codes SET used_at = ?
         WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING *`,
      ).get(at, codeHash, at) as PairingRow | undefined;
      return row ? toPairing(row) : null;
    });
  }
}

function findClient(db: Prepares, clientId: string): StoredOAuthClient | null {
  const row = db.prepare("SELECT * FROM oauth_clients WHERE client_id = ?").get(clientId) as
    | ClientRow
    | undefined;
  return row ? toClient(row) : null;
}

function findGrant(db: Prepares, grantId: string): OAuthGrantRecord | null {
  const row = db.prepare("SELECT * FROM oauth_grants WHERE id = ?").get(grantId) as
    | GrantRow
    | undefined;
  return row ? toGrant(row) : null;
}

function insertRefresh(db: Prepares, refresh: RefreshTokenRecord): void {
  db.prepare(
    `INSERT INTO oauth_refresh_tokens (id, token_hash, grant_id, access_token_id, created_at, expires_at, used_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(...refreshRow(refresh));
}

/**
 * @module The TokenStore port over SQLite: the `tokens` table (migration 5; expiry, audience and
 * OAuth client: migration 16; the operator flag: migration 18). Every HTTP request verifies its bearer token, so found rows are
 * cached by hash until the database changes.
 */
import type {
  ListedToken,
  StoredToken,
  TokenRecord,
  TokenStore,
} from "../../core/ports/token_store.ts";
import { RECORD_COLUMNS, type TokenRow, toTokenRecord } from "../shared/token_rows.ts";
import type { Prepares } from "./database.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { StampedCache } from "./stamped_cache.ts";

/** Token rows over one connection. */
export class SqliteTokenStore implements TokenStore {
  readonly #conn: SqliteConnection;
  readonly #byHash = new StampedCache<StoredToken>(1024);

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  insertToken(token: StoredToken): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      insertToken(this.#conn, token);
    });
  }

  listTokens(): Promise<ListedToken[]> {
    return this.#conn.read(() => listTokensWithClients(this.#conn));
  }

  findToken(id: string): Promise<TokenRecord | null> {
    return this.#conn.read(() => {
      const row = this.#conn.prepare(`SELECT ${RECORD_COLUMNS} FROM tokens WHERE id = ?`).get(id) as
        | TokenRow
        | undefined;
      return row ? toTokenRecord(row) : null;
    });
  }

  findTokenByHash(hash: string): Promise<StoredToken | null> {
    return this.#conn.read(() =>
      this.#conn.throughCache(this.#byHash, hash, () => findTokenByHash(this.#conn, hash))
    );
  }

  revokeToken(id: string, at: string): Promise<{ token: TokenRecord; revokedNow: boolean } | null> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      return revokeToken(this.#conn, id, at);
    });
  }

  touchToken(id: string, at: string, options: { olderThan: string }): Promise<void> {
    return this.#conn.write(() => {
      // Touching changes no cached search or brain; only the cached row, whose old last_used_at
      // would make the next verify touch again.
      this.#byHash.clear();
      touchToken(this.#conn, id, { at, olderThan: options.olderThan });
    });
  }
}

/** Inserts a token row (the OAuth store inserts the access tokens it issues through it too). */
export function insertToken(db: Prepares, token: StoredToken): void {
  db.prepare(
    `INSERT INTO tokens (id, client_id, tier, brains, tools, token_hash, prefix, created_at, last_used_at, revoked_at, expires_at, audience, oauth_client_id, operator)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    token.id,
    token.client_id,
    token.tier,
    token.brains === "*" ? "*" : JSON.stringify(token.brains),
    token.tools === null ? null : JSON.stringify(token.tools),
    token.token_hash,
    token.prefix,
    token.created_at,
    token.last_used_at,
    token.revoked_at,
    token.expires_at,
    token.audience,
    token.oauth_client_id,
    token.operator === true ? 1 : 0,
  );
}

/** Every token, oldest first. */
function listTokens(db: Prepares): TokenRecord[] {
  return (db.prepare(`SELECT ${RECORD_COLUMNS} FROM tokens ORDER BY created_at, rowid`)
    .all() as unknown as TokenRow[]).map(toTokenRecord);
}

/** Every token, oldest first, with its OAuth client's name. */
function listTokensWithClients(db: Prepares): ListedToken[] {
  const columns = RECORD_COLUMNS.split(", ").map((c) => `t.${c}`).join(", ");
  const rows = db.prepare(
    `SELECT ${columns}, c.client_name AS oauth_client_name FROM tokens t
     LEFT JOIN oauth_clients c ON c.client_id = t.oauth_client_id
     ORDER BY t.created_at, t.rowid`,
  ).all() as unknown as (TokenRow & { oauth_client_name: string | null })[];
  return rows.map((row) => ({ ...toTokenRecord(row), oauth_client_name: row.oauth_client_name }));
}

/** The token with this hash, or null. */
function findTokenByHash(db: Prepares, hash: string): StoredToken | null {
  const row = db.prepare(`SELECT ${RECORD_COLUMNS}, token_hash FROM tokens WHERE token_hash = ?`)
    .get(hash) as TokenRow | undefined;
  return row ? { ...toTokenRecord(row), token_hash: row.token_hash! } : null;
}

/** Revokes `id` unless already revoked; run in a transaction so the re-read sees the same state. */
function revokeToken(
  db: Prepares,
  id: string,
  at: string,
): { token: TokenRecord; revokedNow: boolean } | null {
  const revoked = db.prepare(
    `UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${RECORD_COLUMNS}`,
  ).get(at, id) as TokenRow | undefined;
  if (revoked) return { token: toTokenRecord(revoked), revokedNow: true };
  const row = db.prepare(`SELECT ${RECORD_COLUMNS} FROM tokens WHERE id = ?`).get(id) as
    | TokenRow
    | undefined;
  return row ? { token: toTokenRecord(row), revokedNow: false } : null;
}

/** Records a use, unless another request (maybe in another process) recorded one after `olderThan`. */
function touchToken(
  db: Prepares,
  id: string,
  options: { at: string; olderThan: string },
): void {
  db.prepare(
    "UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)",
  ).run(options.at, id, options.olderThan);
}

/**
 * Takes a deleted brain out of token scopes. A token scoped to it alone is revoked (its scope keeps
 * the dead id, which matches no brain, so it can never widen to "all brains"); one scoped to
 * several brains loses just this one. Revoked tokens are narrowed too but not reported.
 */
export function dropBrainFromTokens(
  db: Prepares,
  brainId: string,
  at: string,
): { revokedTokens: string[]; narrowedTokens: string[] } {
  const revokedTokens: string[] = [];
  const narrowedTokens: string[] = [];
  for (const token of listTokens(db)) {
    if (token.brains === "*" || !token.brains.includes(brainId)) continue;
    const rest = token.brains.filter((id) => id !== brainId);
    if (rest.length === 0) {
      if (revokeToken(db, token.id, at)?.revokedNow) revokedTokens.push(token.id);
    } else {
      db.prepare("UPDATE tokens SET brains = ? WHERE id = ?").run(JSON.stringify(rest), token.id);
      if (token.revoked_at === null) narrowedTokens.push(token.id);
    }
  }
  return { revokedTokens, narrowedTokens };
}

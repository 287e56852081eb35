/**
 * @module The TokenStore port over PostgreSQL: the `tokens` table. Rows are read from the database
 * on every request (one indexed lookup by hash), not cached, so a token revoked through any node is
 * refused by every node at its next request.
 */
import type {
  ListedToken,
  StoredToken,
  TokenRecord,
  TokenStore,
} from "../../core/ports/token_store.ts";
import { RECORD_COLUMNS, type TokenRow, toTokenRecord } from "../shared/token_rows.ts";
import type { PostgresConnection, Queries } from "./connection.ts";

/** Token rows over one pool. */
export class PostgresTokenStore implements TokenStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  insertToken(token: StoredToken): Promise<void> {
    return this.#conn.write(async (sql) => {
      await insertToken(sql, token);
    });
  }

  listTokens(): Promise<ListedToken[]> {
    return this.#conn.read(async (sql) => {
      const rows = await sql.unsafe<(TokenRow & { oauth_client_name: string | null })[]>(
        `SELECT ${prefixed("t")}, c.client_name AS oauth_client_name FROM tokens t
           LEFT JOIN oauth_clients c ON c.client_id = t.oauth_client_id
          ORDER BY t.created_at, t.seq`,
      );
      return rows.map((row) => ({
        ...toTokenRecord(row),
        oauth_client_name: row.oauth_client_name,
      }));
    });
  }

  findToken(id: string): Promise<TokenRecord | null> {
    return this.#conn.read(async (sql) => {
      const [row] = await sql.unsafe<TokenRow[]>(
        `SELECT ${RECORD_COLUMNS} FROM tokens WHERE id = $1`,
        [id],
      );
      return row ? toTokenRecord(row) : null;
    });
  }

  findTokenByHash(hash: string): Promise<StoredToken | null> {
    return this.#conn.read(async (sql) => {
      const [row] = await sql.unsafe<TokenRow[]>(
        `SELECT ${RECORD_COLUMNS}, token_hash FROM tokens WHERE token_hash = $1`,
        [hash],
      );
      return row ? { ...toTokenRecord(row), token_hash: row.token_hash! } : null;
    });
  }

  revokeToken(id: string, at: string): Promise<{ token: TokenRecord; revokedNow: boolean } | null> {
    return this.#conn.write(async (sql) => {
      return await revokeToken(sql, id, at);
    });
  }

  touchToken(id: string, at: string, options: { olderThan: string }): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql`UPDATE tokens SET last_used_at = ${at}
                 WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${options.olderThan})`;
    });
  }
}

/** RECORD_COLUMNS of the table aliased `alias`. */
function prefixed(alias: string): string {
  return RECORD_COLUMNS.split(", ").map((c) => `${alias}.${c}`).join(", ");
}

/** Inserts a token row (the OAuth store inserts the access tokens it issues through it too). */
export async function insertToken(sql: Queries, token: StoredToken): Promise<void> {
  await sql`
    INSERT INTO tokens (id, client_id, tier, brains, tools, token_hash, prefix, created_at,
      last_used_at, revoked_at, expires_at, audience, oauth_client_id, operator)
    VALUES (${token.id}, ${token.client_id}, ${token.tier},
      ${token.brains === "*" ? "*" : JSON.stringify(token.brains)},
      ${token.tools === null ? null : JSON.stringify(token.tools)}, ${token.token_hash},
      ${token.prefix}, ${token.created_at}, ${token.last_used_at}, ${token.revoked_at},
      ${token.expires_at}, ${token.audience}, ${token.oauth_client_id}, ${
    token.operator === true
  })`;
}

/** Revokes `id` unless already revoked; run in a transaction so the re-read sees the same state. */
async function revokeToken(
  sql: Queries,
  id: string,
  at: string,
): Promise<{ token: TokenRecord; revokedNow: boolean } | null> {
  const [revoked] = await sql.unsafe<TokenRow[]>(
    `UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING ${RECORD_COLUMNS}`,
    [at, id],
  );
  if (revoked) return { token: toTokenRecord(revoked), revokedNow: true };
  const [row] = await sql.unsafe<TokenRow[]>(
    `SELECT ${RECORD_COLUMNS} FROM tokens WHERE id = $1`,
    [id],
  );
  return row ? { token: toTokenRecord(row), revokedNow: false } : null;
}

/**
 * Takes a deleted brain out of token scopes. A token scoped to it alone is revoked (its scope keeps
 * the dead id, which matches no brain, so it can never widen to "all brains"); one scoped to
 * several brains loses just this one. Revoked tokens are narrowed too but not reported.
 */
export async function dropBrainFromTokens(
  sql: Queries,
  brainId: string,
  at: string,
): Promise<{ revokedTokens: string[]; narrowedTokens: string[] }> {
  const revokedTokens: string[] = [];
  const narrowedTokens: string[] = [];
  const rows = await sql.unsafe<TokenRow[]>(
    `SELECT ${RECORD_COLUMNS} FROM tokens WHERE brains <> '*' ORDER BY created_at, seq FOR UPDATE`,
  );
  for (const token of rows.map(toTokenRecord)) {
    if (token.brains === "*" || !token.brains.includes(brainId)) continue;
    const rest = token.brains.filter((id) => id !== brainId);
    if (rest.length === 0) {
      if ((await revokeToken(sql, token.id, at))?.revokedNow) revokedTokens.push(token.id);
    } else {
      await sql`UPDATE tokens SET brains = ${JSON.stringify(rest)} WHERE id = ${token.id}`;
      if (token.revoked_at === null) narrowedTokens.push(token.id);
    }
  }
  return { revokedTokens, narrowedTokens };
}

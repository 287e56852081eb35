/**
 * @module The UpstreamStore port over PostgreSQL: `upstream_servers` (names unique without regard
 * to ASCII case, as SQLite's NOCASE: `engram_fold`) and `trusted_review_keys`.
 */
import { EngramError } from "../../core/errors.ts";
import type {
  NewUpstream,
  TrustedReviewKey,
  UpstreamConsent,
  UpstreamRecord,
  UpstreamStatus,
  UpstreamStore,
} from "../../core/ports/upstream_store.ts";
import type { PostgresConnection, Queries } from "./connection.ts";
import { toTrustedKey, toUpstream, type UpstreamRow } from "../shared/upstream_rows.ts";

/** Upstream-server state over one pool. */
export class PostgresUpstreamStore implements UpstreamStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  listUpstreams(): Promise<UpstreamRecord[]> {
    return this.#conn.read(async (sql) =>
      (await sql<UpstreamRow[]>`SELECT * FROM upstream_servers ORDER BY engram_fold(name)`)
        .map(toUpstream)
    );
  }

  findUpstream(name: string): Promise<UpstreamRecord | null> {
    return this.#conn.read((sql) => find(sql, name));
  }

  addUpstream(server: NewUpstream): Promise<UpstreamRecord> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now().toISOString();
      const inserted = await sql`
        INSERT INTO upstream_servers (name, definition, origin, imported_from, enabled,
          client_consent, created_at, updated_at)
        VALUES (${server.name}, ${JSON.stringify(server.definition)}, ${server.origin},
          ${server.imported_from}, ${server.enabled}, ${server.client_consent}, ${now}, ${now})
        ON CONFLICT (engram_fold(name)) DO NOTHING`;
      if (inserted.count === 0) {
        const existing = await find(sql, server.name);
        throw new EngramError(
          "conflict",
          `an upstream server named "${
            existing?.name ?? server.name
          }" already exists; remove it first or choose another name`,
        );
      }
      return (await find(sql, server.name))!;
    });
  }

  setUpstreamState(
    name: string,
    patch: { enabled?: boolean; client_consent?: UpstreamConsent },
  ): Promise<UpstreamRecord> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now().toISOString();
      await ensureRow(sql, name, now);
      await sql`
        UPDATE upstream_servers SET enabled = coalesce(${patch.enabled ?? null}::boolean, enabled),
          client_consent = coalesce(${patch.client_consent ?? null}, client_consent),
          updated_at = ${now}
         WHERE engram_fold(name) = engram_fold(${name})`;
      return (await find(sql, name))!;
    });
  }

  setUpstreamDefinition(
    name: string,
    definition: Record<string, unknown>,
  ): Promise<UpstreamRecord> {
    return this.#conn.write(async (sql) => {
      const changed = await sql`
        UPDATE upstream_servers SET definition = ${JSON.stringify(definition)},
          updated_at = ${this.#conn.now().toISOString()}
         WHERE engram_fold(name) = engram_fold(${name}) AND definition IS NOT NULL`;
      if (changed.count === 0) {
        throw new EngramError(
          "not_found",
          `no imported upstream server named "${name}"; list them with: engram mcp servers`,
        );
      }
      return (await find(sql, name))!;
    });
  }

  recordUpstreamStatus(name: string, status: UpstreamStatus): Promise<void> {
    return this.#conn.write(async (sql) => {
      await ensureRow(sql, name, status.at);
      await sql`
        UPDATE upstream_servers SET last_status = ${status.status}, last_error = ${status.error},
          last_at = ${status.at}
         WHERE engram_fold(name) = engram_fold(${name})`;
    });
  }

  removeUpstream(name: string): Promise<boolean> {
    return this.#conn.write(async (sql) =>
      (await sql`DELETE FROM upstream_servers WHERE engram_fold(name) = engram_fold(${name})`)
        .count > 0
    );
  }

  trustReviewKey(
    key: { key: string; file: string | null; added_by: string },
  ): Promise<TrustedReviewKey> {
    return this.#conn.write(async (sql) => {
      await sql`
        INSERT INTO trusted_review_keys (key, file, added_by, added_at)
        VALUES (${key.key}, ${key.file}, ${key.added_by}, ${this.#conn.now().toISOString()})
        ON CONFLICT (key) DO NOTHING`;
      const [row] = await sql<TrustedReviewKey[]>`
        SELECT * FROM trusted_review_keys WHERE key = ${key.key}`;
      return toTrustedKey(row);
    });
  }

  listTrustedReviewKeys(): Promise<TrustedReviewKey[]> {
    return this.#conn.read(async (sql) =>
      (await sql<TrustedReviewKey[]>`
        SELECT * FROM trusted_review_keys ORDER BY added_at, key COLLATE "C"`).map(toTrustedKey)
    );
  }

  removeTrustedReviewKey(key: string): Promise<boolean> {
    return this.#conn.write(async (sql) =>
      (await sql`DELETE FROM trusted_review_keys WHERE key = ${key}`).count > 0
    );
  }
}

/** A state-only row for a server the YAML defines, unless one exists. */
async function ensureRow(sql: Queries, name: string, at: string): Promise<void> {
  await sql`
    INSERT INTO upstream_servers (name, created_at, updated_at) VALUES (${name}, ${at}, ${at})
    ON CONFLICT (engram_fold(name)) DO NOTHING`;
}

async function find(sql: Queries, name: string): Promise<UpstreamRecord | null> {
  const [row] = await sql<UpstreamRow[]>`
    SELECT * FROM upstream_servers WHERE engram_fold(name) = engram_fold(${name})`;
  return row ? toUpstream(row) : null;
}

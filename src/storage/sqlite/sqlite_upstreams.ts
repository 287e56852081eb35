/**
 * @module The UpstreamStore port over SQLite: the `upstream_servers` table (migration 7) and the
 * review keys trusted through the database, `trusted_review_keys` (migration 15).
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
import type { SqliteConnection } from "./sqlite_connection.ts";
import { toTrustedKey, toUpstream, type UpstreamRow } from "../shared/upstream_rows.ts";

/** Upstream-server state over one connection. */
export class SqliteUpstreamStore implements UpstreamStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  listUpstreams(): Promise<UpstreamRecord[]> {
    return this.#conn.read(() =>
      (this.#conn.prepare("SELECT * FROM upstream_servers ORDER BY name COLLATE NOCASE")
        .all() as unknown as UpstreamRow[]).map(toUpstream)
    );
  }

  findUpstream(name: string): Promise<UpstreamRecord | null> {
    return this.#conn.read(() => this.#find(name));
  }

  addUpstream(server: NewUpstream): Promise<UpstreamRecord> {
    return this.#conn.write(() => {
      const existing = this.#find(server.name);
      if (existing) {
        throw new EngramError(
          "conflict",
          `an upstream server named "${existing.name}" already exists; remove it first or choose another name`,
        );
      }
      const now = this.#conn.now().toISOString();
      this.#conn.prepare(
        `INSERT INTO upstream_servers (name, definition, origin, imported_from, enabled, client_consent, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        server.name,
        JSON.stringify(server.definition),
        server.origin,
        server.imported_from,
        server.enabled ? 1 : 0,
        server.client_consent,
        now,
        now,
      );
      return this.#find(server.name)!;
    });
  }

  setUpstreamState(
    name: string,
    patch: { enabled?: boolean; client_consent?: UpstreamConsent },
  ): Promise<UpstreamRecord> {
    return this.#conn.write(() => {
      const now = this.#conn.now().toISOString();
      this.#ensureRow(name, now);
      this.#conn.prepare(
        `UPDATE upstream_servers SET enabled = coalesce(?, enabled),
           client_consent = coalesce(?, client_consent), updated_at = ? WHERE name = ?`,
      ).run(
        patch.enabled === undefined ? null : patch.enabled ? 1 : 0,
        patch.client_consent ?? null,
        now,
        name,
      );
      return this.#find(name)!;
    });
  }

  setUpstreamDefinition(
    name: string,
    definition: Record<string, unknown>,
  ): Promise<UpstreamRecord> {
    return this.#conn.write(() => {
      const changed = this.#conn.prepare(
        "UPDATE upstream_servers SET definition = ?, updated_at = ? WHERE name = ? AND definition IS NOT NULL",
      ).run(JSON.stringify(definition), this.#conn.now().toISOString(), name);
      if (changed.changes === 0) {
        throw new EngramError(
          "not_found",
          `no imported upstream server named "${name}"; list them with: engram mcp servers`,
        );
      }
      return this.#find(name)!;
    });
  }

  recordUpstreamStatus(name: string, status: UpstreamStatus): Promise<void> {
    return this.#conn.write(() => {
      this.#ensureRow(name, status.at);
      this.#conn.prepare(
        "UPDATE upstream_servers SET last_status = ?, last_error = ?, last_at = ? WHERE name = ?",
      ).run(status.status, status.error, status.at, name);
    });
  }

  removeUpstream(name: string): Promise<boolean> {
    return this.#conn.write(() =>
      this.#conn.prepare("DELETE FROM upstream_servers WHERE name = ?").run(name).changes > 0
    );
  }

  trustReviewKey(
    key: { key: string; file: string | null; added_by: string },
  ): Promise<TrustedReviewKey> {
    return this.#conn.write(() => {
      this.#conn.prepare(
        "INSERT INTO trusted_review_keys (key, file, added_by, added_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
      ).run(key.key, key.file, key.added_by, this.#conn.now().toISOString());
      return toTrustedKey(
        this.#conn.prepare("SELECT * FROM trusted_review_keys WHERE key = ?")
          .get(key.key) as unknown as TrustedReviewKey,
      );
    });
  }

  listTrustedReviewKeys(): Promise<TrustedReviewKey[]> {
    return this.#conn.read(() =>
      (this.#conn.prepare("SELECT * FROM trusted_review_keys ORDER BY added_at, key")
        .all() as unknown as TrustedReviewKey[])
        .map(toTrustedKey)
    );
  }

  removeTrustedReviewKey(key: string): Promise<boolean> {
    return this.#conn.write(() =>
      this.#conn.prepare("DELETE FROM trusted_review_keys WHERE key = ?").run(key).changes > 0
    );
  }

  #ensureRow(name: string, at: string): void {
    this.#conn.prepare(
      "INSERT INTO upstream_servers (name, created_at, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
    ).run(name, at, at);
  }

  #find(name: string): UpstreamRecord | null {
    const row = this.#conn.prepare("SELECT * FROM upstream_servers WHERE name = ?").get(name) as
      | UpstreamRow
      | undefined;
    return row ? toUpstream(row) : null;
  }
}

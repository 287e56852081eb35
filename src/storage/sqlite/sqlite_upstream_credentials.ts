/**
 * @module The UpstreamCredentialStore port over SQLite: the `upstream_credentials` table
 * (migration 17), one row per server. The sealed columns hold what the caller sealed; nothing here
 * can read them. The refresh lease lives on the row and expires by the connection's clock.
 */
import type {
  UpstreamCredentials,
  UpstreamCredentialsPatch,
  UpstreamCredentialStore,
} from "../../core/ports/upstream_credentials.ts";
import {
  COLUMNS,
  type CredentialsRow,
  toCredentials,
} from "../shared/upstream_credentials_rows.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

/** Upstream OAuth credentials over one connection. */
export class SqliteUpstreamCredentialStore implements UpstreamCredentialStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  findCredentials(server: string): Promise<UpstreamCredentials | null> {
    return this.#conn.read(() => this.#find(server));
  }

  listCredentials(): Promise<UpstreamCredentials[]> {
    return this.#conn.read(() =>
      (this.#conn.prepare("SELECT * FROM upstream_credentials ORDER BY server COLLATE NOCASE")
        .all() as unknown as CredentialsRow[]).map(toCredentials)
    );
  }

  updateCredentials(
    server: string,
    patch: UpstreamCredentialsPatch,
    options: { leaseHolder?: string } = {},
  ): Promise<boolean> {
    return this.#conn.write(() => {
      const now = this.#conn.now().toISOString();
      if (options.leaseHolder !== undefined && !this.#holds(server, options.leaseHolder, now)) {
        return false;
      }
      const names = COLUMNS.filter((c) => patch[c] !== undefined);
      const values = names.map((c) => columnValue(c, patch[c]));
      const existing = this.#conn.prepare(
        "SELECT server FROM upstream_credentials WHERE server = ?",
      ).get(server) as { server: string } | undefined;
      if (existing) {
        const sets = [...names.map((c) => `${c} = ?`), "updated_at = ?"].join(", ");
        this.#conn.prepare(`UPDATE upstream_credentials SET ${sets} WHERE server = ?`).run(
          ...values,
          now,
          existing.server,
        );
      } else {
        const cols = ["server", ...names, "updated_at"].join(", ");
        const marks = ["?", ...names.map(() => "?"), "?"].join(", ");
        this.#conn.prepare(`INSERT INTO upstream_credentials (${cols}) VALUES (${marks})`).run(
          server,
          ...values,
          now,
        );
      }
      return true;
    });
  }

  removeCredentials(server: string): Promise<boolean> {
    return this.#conn.write(() =>
      this.#conn.prepare("DELETE FROM upstream_credentials WHERE server = ?").run(server)
        .changes > 0
    );
  }

  acquireRefreshLease(server: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.#conn.write(() => {
      const now = this.#conn.now();
      const taken = this.#conn.prepare(
        `UPDATE upstream_credentials SET lease_holder = ?, lease_expires_at = ?
          WHERE server = ? AND (lease_holder IS NULL OR lease_holder = ? OR lease_expires_at < ?)`,
      ).run(
        holder,
        new Date(now.getTime() + ttlMs).toISOString(),
        server,
        holder,
        now.toISOString(),
      );
      return taken.changes > 0;
    });
  }

  releaseRefreshLease(server: string, holder: string): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare(
        `UPDATE upstream_credentials SET lease_holder = NULL, lease_expires_at = NULL
          WHERE server = ? AND lease_holder = ?`,
      ).run(server, holder);
    });
  }

  #find(server: string): UpstreamCredentials | null {
    const row = this.#conn.prepare("SELECT * FROM upstream_credentials WHERE server = ?").get(
      server,
    ) as CredentialsRow | undefined;
    return row ? toCredentials(row) : null;
  }

  #holds(server: string, holder: string, now: string): boolean {
    return this.#conn.prepare(
      `SELECT 1 FROM upstream_credentials
        WHERE server = ? AND lease_holder = ? AND lease_expires_at >= ?`,
    ).get(server, holder, now) !== undefined;
  }
}

/** A patch value as SQLite stores it (booleans as 0/1, discovery as JSON text, null kept). */
function columnValue(column: string, value: unknown): string | number | null {
  if (value === null) return null;
  if (column === "refreshable") return value ? 1 : 0;
  if (column === "discovery") return JSON.stringify(value);
  return value as string;
}

/**
 * @module The UpstreamCredentialStore port over PostgreSQL: the `upstream_credentials` table, one
 * row per server (names compared without regard to ASCII case: `engram_fold`). The sealed columns
 * hold what the caller sealed; nothing here can read them. The refresh lease lives on the row and
 * expires by engram's clock, so one node at a time refreshes a server's tokens.
 */
import type {
  UpstreamCredentials,
  UpstreamCredentialsPatch,
  UpstreamCredentialStore,
} from "../../../core/ports/upstream_credentials.ts";
import {
  COLUMNS,
  type CredentialsRow,
  toCredentials,
} from "../../shared/upstream_credentials_rows.ts";
import type { PostgresConnection, Queries } from "../connection.ts";

/** One server's row. */
const BY_SERVER = "engram_fold(server) = engram_fold($1)";

/** Upstream OAuth credentials over one pool. */
export class PostgresUpstreamCredentialStore implements UpstreamCredentialStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  findCredentials(server: string): Promise<UpstreamCredentials | null> {
    return this.#conn.read((sql) => find(sql, server));
  }

  listCredentials(): Promise<UpstreamCredentials[]> {
    return this.#conn.read(async (sql) =>
      (await sql<CredentialsRow[]>`SELECT * FROM upstream_credentials ORDER BY engram_fold(server)`)
        .map(toCredentials)
    );
  }

  /**
   * The row is created (or locked) first, so a write under a lease checks the lease and writes
   * while no other node can take it over in between.
   */
  updateCredentials(
    server: string,
    patch: UpstreamCredentialsPatch,
    options: { leaseHolder?: string } = {},
  ): Promise<boolean> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now().toISOString();
      if (options.leaseHolder !== undefined) {
        const [held] = await sql.unsafe(
          `SELECT 1 FROM upstream_credentials
            WHERE ${BY_SERVER} AND lease_holder = $2 AND lease_expires_at >= $3 FOR UPDATE`,
          [server, options.leaseHolder, now],
        );
        if (!held) return false;
      }
      const names = COLUMNS.filter((c) => patch[c] !== undefined);
      const columns = [...names, "updated_at"];
      await sql.unsafe(
        `INSERT INTO upstream_credentials (server, ${columns.join(", ")})
         VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(", ")})
         ON CONFLICT (engram_fold(server)) DO UPDATE SET ${
          columns.map((c) => `${c} = excluded.${c}`).join(", ")
        }`,
        [server, ...names.map((c) => columnValue(c, patch[c])), now],
      );
      return true;
    });
  }

  removeCredentials(server: string): Promise<boolean> {
    return this.#conn.write(async (sql) =>
      (await sql.unsafe(`DELETE FROM upstream_credentials WHERE ${BY_SERVER}`, [server])).count >
        0
    );
  }

  acquireRefreshLease(server: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now();
      const taken = await sql.unsafe(
        `UPDATE upstream_credentials SET lease_holder = $2, lease_expires_at = $3
          WHERE ${BY_SERVER} AND (lease_holder IS NULL OR lease_holder = $2 OR lease_expires_at < $4)`,
        [server, holder, new Date(now.getTime() + ttlMs).toISOString(), now.toISOString()],
      );
      return taken.count > 0;
    });
  }

  releaseRefreshLease(server: string, holder: string): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql.unsafe(
        `UPDATE upstream_credentials SET lease_holder = NULL, lease_expires_at = NULL
          WHERE ${BY_SERVER} AND lease_holder = $2`,
        [server, holder],
      );
    });
  }
}

async function find(sql: Queries, server: string): Promise<UpstreamCredentials | null> {
  const [row] = await sql.unsafe<CredentialsRow[]>(
    `SELECT * FROM upstream_credentials WHERE ${BY_SERVER}`,
    [server],
  );
  return row ? toCredentials(row) : null;
}

/** A patch value as stored (discovery as JSON text, null kept). */
function columnValue(column: string, value: unknown): string | boolean | null {
  if (value === null) return null;
  if (column === "refreshable") return value === true;
  if (column === "discovery") return JSON.stringify(value);
  return value as string;
}

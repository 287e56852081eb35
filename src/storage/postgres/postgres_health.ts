/**
 * @module StorageHealth over PostgreSQL (docs/operations.md#corrupt-or-full-database). PostgreSQL
 * checks its own pages (and `engram doctor` cannot repair them: that is the server operator's
 * work, with PostgreSQL's tools), so the checks here are of what engram keeps consistent itself:
 * the quick one that the schema is the version this node knows and that no derived row (chunk,
 * link, tag) belongs to a forgotten document; the full one also that every document has each of
 * its versions, and, where the `amcheck` extension is installed, PostgreSQL's own B-tree check of
 * engram's indexes.
 */
import type { StorageCheck, StorageContents, StorageHealth } from "../../core/ports/storage.ts";
import type { PostgresConnection, Queries } from "./connection.ts";
import { MIGRATIONS, schemaVersion } from "./migrations.ts";

/** Offending rows named at most, per check. */
const MAX_PROBLEMS = 5;

/** One consistency check: a query returning one `problem` text per offending row. */
interface Check {
  name: string;
  sql: string;
}

/** Rows derived from a document that must be gone once it is forgotten. */
const DERIVED_OF_FORGOTTEN: Check[] = [
  ["chunks", "document_id"],
  ["links", "source_document_id"],
  ["document_tags", "document_id"],
].map(([table, column]) => ({
  name: `derived:${table}`,
  sql: `SELECT 'a row of ${table} belongs to forgotten document ' || d.id AS problem
          FROM ${table} x JOIN documents d ON d.id = x.${column}
         WHERE d.deleted_at IS NOT NULL LIMIT ${MAX_PROBLEMS}`,
}));

/** Every document holds versions 1 to its current one. */
const VERSIONS: Check = {
  name: "versions",
  sql: `SELECT 'document ' || d.id || ' is at version ' || d.version || ' but holds '
               || count(v.version) || ' version(s)' AS problem
          FROM documents d LEFT JOIN document_versions v ON v.document_id = d.id
         GROUP BY d.id, d.version
        HAVING count(v.version) <> d.version OR max(v.version) <> d.version
         LIMIT ${MAX_PROBLEMS}`,
};

/** Health of one pool's database. */
export class PostgresHealth implements StorageHealth {
  readonly #conn: PostgresConnection;
  /** What a check first found wrong; null while none has. */
  #damage: string | null = null;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  /** Whether the server answers with the schema this node runs, and no check found damage. */
  async ready(): Promise<boolean> {
    if (this.#damage !== null) return false;
    try {
      return await this.#conn.read((sql) => schemaVersion(sql)) === MIGRATIONS.length;
    } catch {
      return false;
    }
  }

  contents(): Promise<StorageContents> {
    return this.#conn.read(async (sql) => {
      const [row] = await sql<Omit<StorageContents, "schema_version">[]>`
        SELECT (SELECT count(*) FROM brains) AS brains,
               (SELECT count(*) FROM documents WHERE deleted_at IS NULL) AS documents,
               (SELECT count(*) FROM document_versions) AS versions,
               (SELECT count(*) FROM sessions) AS sessions`;
      return { schema_version: (await schemaVersion(sql)) ?? 0, ...row };
    });
  }

  async check(options: { level: "quick" | "full"; signal?: AbortSignal }): Promise<StorageCheck[]> {
    const checks: StorageCheck[] = [];
    const consistency = options.level === "quick"
      ? DERIVED_OF_FORGOTTEN
      : [...DERIVED_OF_FORGOTTEN, VERSIONS];
    if (options.signal?.aborted) return [];
    checks.push(await this.#schemaCheck());
    for (const check of consistency) {
      if (options.signal?.aborted && options.level === "quick") return [];
      checks.push(
        await this.#run(
          check.name,
          async (sql) => (await sql.unsafe<{ problem: string }[]>(check.sql)).map((r) => r.problem),
        ),
      );
    }
    if (options.level === "full") {
      const amcheck = await this.#amcheck();
      if (amcheck) checks.push(amcheck);
    }
    const damaged = checks.find((c) => c.status === "damaged");
    if (damaged) this.#damage ??= `${damaged.name}: ${damaged.problems[0] ?? ""}`;
    return checks;
  }

  /** The schema is the version this node knows. */
  #schemaCheck(): Promise<StorageCheck> {
    return this.#run("schema_version", async (sql) => {
      const version = await schemaVersion(sql);
      return version === MIGRATIONS.length
        ? []
        : [`the schema is at version ${version}; this node knows ${MIGRATIONS.length}`];
    });
  }

  /** `bt_index_check` of each of engram's B-tree indexes, when amcheck is installed; else null. */
  async #amcheck(): Promise<StorageCheck | null> {
    const installed = await this.#conn.read((sql) =>
      sql`SELECT 1 FROM pg_extension WHERE extname = 'amcheck'`
    ).catch(() => []);
    if (installed.length === 0) return null;
    return await this.#run("amcheck", async (sql) => {
      const indexes = await sql<{ name: string }[]>`
        SELECT c.relname AS name FROM pg_index i
          JOIN pg_class c ON c.oid = i.indexrelid
          JOIN pg_am a ON a.oid = c.relam
         WHERE a.amname = 'btree' AND c.relnamespace = current_schema()::regnamespace
         ORDER BY c.relname`;
      const problems: string[] = [];
      for (const { name } of indexes) {
        try {
          await sql`SELECT bt_index_check(${name}::regclass)`;
        } catch (err) {
          problems.push(`${name}: ${err instanceof Error ? err.message : err}`);
          if (problems.length >= MAX_PROBLEMS) break;
        }
      }
      return problems;
    });
  }

  /** Runs one check: `ok` with no problems, `damaged` with some, `not_run` when it failed. */
  async #run(name: string, find: (sql: Queries) => Promise<string[]>): Promise<StorageCheck> {
    try {
      const problems = (await this.#conn.read(find)).slice(0, MAX_PROBLEMS);
      return { name, status: problems.length === 0 ? "ok" : "damaged", problems };
    } catch (err) {
      return {
        name,
        status: "not_run",
        problems: [err instanceof Error ? err.message : String(err)],
      };
    }
  }
}

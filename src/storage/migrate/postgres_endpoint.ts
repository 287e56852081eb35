/**
 * @module A PostgreSQL database as one side of `engram migrate`: migrated to this engram's schema
 * the way a node starting migrates it, read in `seq` or key order, written many rows per statement
 * (the batch travels as one JSON parameter) with each row's `seq` kept. The `fts` column is
 * generated and the word list is queued by the chunks' trigger, so both are rebuilt on the target;
 * `finish` drains the word list, moves the identity sequences past the copied rows and vacuums and
 * analyzes the tables (docs/architecture.md#postgresql-engram-migrate).
 */
import type postgres from "postgres";
import { EngramError } from "../../core/errors.ts";
import { describeServer, openPool } from "../postgres/connection.ts";
import { migrate, schemaVersion } from "../postgres/migrations.ts";
import { translatePgError } from "../postgres/pg_errors.ts";
import { afterCondition, type Endpoint, PROGRESS_TABLE, quote } from "./endpoint.ts";
import {
  type Columns,
  type ColumnSet,
  float32Values,
  type Row,
  SEQ,
  type TableSpec,
  type Value,
  type Watermark,
} from "./tables.ts";

/** Tables PostgreSQL derives (the word list and its queue) or keeps for itself (the schema version). */
const DERIVED = new Set(["engram_schema", "search_words", "search_word_changes", PROGRESS_TABLE]);

/** Queued word-list changes moved per statement when the copy finishes. */
const DRAIN_BATCH = 5000;

/**
 * Opens the database at `url`, migrating it to this engram's schema. A source must already be an
 * engram database; a target may be empty (the schema is created).
 */
export async function openPostgresEndpoint(
  url: string,
  role: "source" | "target",
): Promise<Endpoint> {
  const server = describeServer(url);
  // No statement timeout: the copy's own statements are bounded by its batches, and draining the
  // word list of a large brain may take a while.
  const sql = openPool({ url, poolSize: 2, statementTimeoutMs: 0 });
  const flag = role === "source" ? "--from" : "--to";
  try {
    try {
      await sql`SELECT 1`;
    } catch (err) {
      throw new EngramError(
        "internal",
        `cannot reach PostgreSQL at ${server} (${
          (err as Error).message
        }); check the URL given to ${flag} and that the server is up`,
        { cause: err },
      );
    }
    if (role === "source" && await schemaVersion(sql) === null) {
      throw new EngramError(
        "invalid_argument",
        `--from: PostgreSQL ${server} holds no engram database (no engram_schema table); check the URL`,
      );
    }
    await migrate(sql);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw translatePgError(err, { server });
  }
  return new PostgresEndpoint(sql, server);
}

/** A PostgreSQL database, read and written in canonical rows. */
class PostgresEndpoint implements Endpoint {
  readonly kind = "postgres";
  readonly label: string;
  readonly #sql: postgres.Sql;
  readonly #server: string;
  /** Each table's columns and their types, once read. */
  readonly #types = new Map<string, Map<string, string>>();

  constructor(sql: postgres.Sql, server: string) {
    this.#sql = sql;
    this.#server = server;
    this.label = `PostgreSQL ${server}`;
  }

  tableNames(): Promise<string[]> {
    return this.#run(async () =>
      (await this.#sql<{ name: string }[]>`
        SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
        .map((r) => r.name).filter((n) => !DERIVED.has(n))
    );
  }

  columns(table: TableSpec): Promise<ColumnSet> {
    return this.#run(async () => {
      const types = [...await this.#columnTypes(table)];
      const having = (type: string) => types.filter(([, t]) => t === type).map(([n]) => n);
      return {
        names: types.map(([n]) => n).sort(),
        booleans: having("boolean"),
        // real[] is the only array type engram stores.
        vectors: having("ARRAY"),
      };
    });
  }

  count(table: TableSpec): Promise<number> {
    return this.#run(async () => {
      const [{ n }] = await this.#sql.unsafe<{ n: number }[]>(
        `SELECT count(*) AS n FROM ${quote(table.name)}`,
      );
      return Number(n);
    });
  }

  read(table: TableSpec, columns: Columns, after: Watermark | null, limit: number): Promise<Row[]> {
    return this.#run(async () => {
      const types = await this.#columnTypes(table);
      const col = (name: string) =>
        types.get(name) === "text" ? `${quote(name)} COLLATE "C"` : quote(name);
      const where = after === null
        ? ""
        : `WHERE ${afterCondition(table.key, col, (i) => `$${i + 1}`)}`;
      const rows = await this.#sql.unsafe<Record<string, Value>[]>(
        `SELECT ${columns.map(quote).join(", ")} FROM ${quote(table.name)} ${where}
          ORDER BY ${table.key.map(col).join(", ")} LIMIT $${(after?.length ?? 0) + 1}`,
        [...(after ?? []), limit] as postgres.ParameterOrJSON<never>[],
      );
      return rows.map((r) => fromPostgres(table, r));
    });
  }

  write(
    table: TableSpec,
    columns: Columns,
    rows: readonly Row[],
    progress: Readonly<Record<string, string>>,
  ): Promise<void> {
    return this.#run(async () => {
      const list = columns.map(quote).join(", ");
      const overriding = table.key.includes(SEQ) ? "OVERRIDING SYSTEM VALUE" : "";
      await this.#sql.begin(async (tx) => {
        if (rows.length > 0) {
          await tx.unsafe(
            `INSERT INTO ${quote(table.name)} (${list}) ${overriding}
             SELECT ${list} FROM json_populate_recordset(NULL::${
              quote(table.name)
            }, $1::text::json)`,
            [JSON.stringify(rows)],
          );
        }
        await putProgress(tx, progress);
      });
    });
  }

  progress(): Promise<Map<string, string> | null> {
    return this.#run(async () => {
      const [{ exists }] = await this.#sql<{ exists: boolean }[]>`
        SELECT to_regclass(${PROGRESS_TABLE}) IS NOT NULL AS exists`;
      if (!exists) return null;
      const rows = await this.#sql.unsafe<{ key: string; value: string }[]>(
        `SELECT key, value FROM ${PROGRESS_TABLE}`,
      );
      return new Map(rows.map((r) => [r.key, r.value]));
    });
  }

  startProgress(entries: Readonly<Record<string, string>>): Promise<void> {
    return this.#run(() =>
      this.#sql.begin(async (tx) => {
        await tx.unsafe(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`);
        await tx.unsafe(
          `CREATE TABLE ${PROGRESS_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
        );
        await putProgress(tx, entries);
      }).then(() => {})
    );
  }

  endProgress(): Promise<void> {
    return this.#run(async () =>
      void await this.#sql.unsafe(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`)
    );
  }

  empty(tables: readonly TableSpec[]): Promise<void> {
    return this.#run(async () => {
      const names = [...tables.map((t) => t.name), "search_words", "search_word_changes"];
      await this.#sql.unsafe(`TRUNCATE ${names.map(quote).join(", ")} RESTART IDENTITY`);
    });
  }

  finish(tables: readonly TableSpec[]): Promise<void> {
    return this.#run(async () => {
      for (const t of tables.filter((t) => t.key.includes(SEQ))) {
        // The next row written by a node gets a seq past every copied one.
        await this.#sql.unsafe(
          `SELECT setval(pg_get_serial_sequence($1, 'seq'), coalesce(max(seq), 0) + 1, false)
             FROM ${quote(t.name)}`,
          [t.name],
        );
      }
      for (;;) {
        const [{ taken }] = await this.#sql<{ taken: number }[]>`
          SELECT engram_drain_search_words(${DRAIN_BATCH}, true) AS taken`;
        if (taken < DRAIN_BATCH) break;
      }
      // What autovacuum would do a while after a bulk load, done now so the first searches of the
      // nodes do not pay for it: hint bits and the visibility map set (a count over the full-text
      // index then skips the heap), and the planner's statistics taken.
      await this.#sql.unsafe("VACUUM ANALYZE");
    });
  }

  close(): Promise<void> {
    return this.#sql.end({ timeout: 5 });
  }

  /** The table's columns (generated ones left out: the target computes them) and their types. */
  async #columnTypes(table: TableSpec): Promise<Map<string, string>> {
    const known = this.#types.get(table.name);
    if (known) return known;
    const rows = await this.#sql<{ name: string; type: string }[]>`
      SELECT column_name AS name, data_type AS type FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ${table.name}
         AND is_generated = 'NEVER'`;
    const types = new Map(rows.map((r) => [r.name, r.type]));
    this.#types.set(table.name, types);
    return types;
  }

  /** Runs `fn`, with PostgreSQL's failures as EngramErrors naming the server. */
  async #run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translatePgError(err, { server: this.#server });
    }
  }
}

/** Records progress entries inside the copy's transaction. */
async function putProgress(
  tx: postgres.TransactionSql,
  entries: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [key, value] of Object.entries(entries)) {
    await tx.unsafe(
      `INSERT INTO ${PROGRESS_TABLE} (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [key, value],
    );
  }
}

/** A PostgreSQL row in canonical values (vectors as exact Float32 values). */
function fromPostgres(table: TableSpec, row: Record<string, Value>): Row {
  const out: Row = { ...row };
  for (const name of table.vectors ?? []) {
    const v = out[name];
    if (Array.isArray(v)) out[name] = float32Values(v);
  }
  return out;
}

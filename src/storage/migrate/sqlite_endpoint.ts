/**
 * @module A SQLite file as one side of `engram migrate`: opened (created and migrated) the way every
 * engram command opens it, read in rowid or key order, written with each row's rowid kept. The
 * full-text index and the word list are not copied: the chunks' triggers fill them as the chunks
 * arrive (docs/architecture.md#postgresql-engram-migrate).
 */
import { dirname } from "node:path";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { EngramError } from "../../core/errors.ts";
import { openDatabase, transaction, translateSqliteError } from "../sqlite/database.ts";
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

/** The FTS5 tables (and their shadow tables) SQLite derives from the chunks. */
const DERIVED = /^(chunks_fts|chunks_words)/;

/** Opens `file` as a source (it must exist) or a target (created when missing). */
export function openSqliteEndpoint(file: string, role: "source" | "target"): Endpoint {
  if (role === "source") {
    try {
      Deno.statSync(file);
    } catch {
      throw new EngramError(
        "invalid_argument",
        `--from: no SQLite file at ${file}; give the path of an engram.db, or a postgres:// URL`,
      );
    }
  } else {
    const folder = dirname(file);
    try {
      if (!Deno.statSync(folder).isDirectory) throw new Error("not a folder");
    } catch {
      throw new EngramError(
        "invalid_argument",
        `--to: no folder ${folder} for the SQLite file; create it first, or give another path`,
      );
    }
  }
  return new SqliteEndpoint(openDatabase(file), file);
}

/** A SQLite file, read and written in canonical rows. */
class SqliteEndpoint implements Endpoint {
  readonly kind = "sqlite";
  readonly #db: DatabaseSync;
  readonly #file: string;
  readonly label: string;

  constructor(db: DatabaseSync, file: string) {
    this.#db = db;
    this.#file = file;
    this.label = `SQLite ${file}`;
  }

  tableNames(): Promise<string[]> {
    return this.#run(() =>
      (this.#db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      ).all() as { name: string }[]).map((r) => r.name).filter((n) =>
        !DERIVED.test(n) && n !== PROGRESS_TABLE
      )
    );
  }

  columns(table: TableSpec): Promise<ColumnSet> {
    return this.#run(() => {
      const canonical = new Map(
        Object.entries(table.sqliteNames ?? {}).map(([pg, lite]) => [lite, pg]),
      );
      const names = (this.#db.prepare(`PRAGMA table_info(${quote(table.name)})`).all() as {
        name: string;
      }[]).map((c) => canonical.get(c.name) ?? c.name).filter((n) => n !== "rowid");
      if (table.key.includes(SEQ)) names.push(SEQ);
      return { names: names.sort(), booleans: [], vectors: [] };
    });
  }

  count(table: TableSpec): Promise<number> {
    return this.#run(() =>
      Number(
        (this.#db.prepare(`SELECT count(*) AS n FROM ${quote(table.name)}`).get() as {
          n: number;
        }).n,
      )
    );
  }

  read(table: TableSpec, columns: Columns, after: Watermark | null, limit: number): Promise<Row[]> {
    return this.#run(() => {
      const col = (name: string) => sqliteColumn(table, name);
      const select = columns.map((c) => `${col(c)} AS ${quote(c)}`).join(", ");
      const where = after === null
        ? ""
        : `WHERE ${
          afterCondition(table.key, (c) => `${col(c)} COLLATE BINARY`, (i) => `?${i + 1}`)
        }`;
      const order = table.key.map((c) => `${col(c)} COLLATE BINARY`).join(", ");
      const params = [...(after ?? []).map(toSqlite), limit] as SQLInputValue[];
      const rows = this.#db.prepare(
        `SELECT ${select} FROM ${quote(table.name)} ${where} ORDER BY ${order} LIMIT ?${
          (after?.length ?? 0) + 1
        }`,
      ).all(...params) as Record<string, SQLInputValue>[];
      return rows.map((r) => fromSqlite(table, r));
    });
  }

  write(
    table: TableSpec,
    columns: Columns,
    rows: readonly Row[],
    progress: Readonly<Record<string, string>>,
  ): Promise<void> {
    return this.#run(() => {
      const names = columns.map((c) => quote(c === SEQ ? "rowid" : sqliteName(table, c)));
      const insert = this.#db.prepare(
        `INSERT INTO ${quote(table.name)} (${names.join(", ")}) VALUES (${
          columns.map(() => "?").join(", ")
        })`,
      );
      transaction(this.#db, () => {
        for (const row of rows) insert.run(...columns.map((c) => toSqlite(row[c])));
        this.#putProgress(progress);
      });
    });
  }

  progress(): Promise<Map<string, string> | null> {
    return this.#run(() => {
      if (!this.#hasProgressTable()) return null;
      const rows = this.#db.prepare(`SELECT key, value FROM ${PROGRESS_TABLE}`).all() as {
        key: string;
        value: string;
      }[];
      return new Map(rows.map((r) => [r.key, r.value]));
    });
  }

  startProgress(entries: Readonly<Record<string, string>>): Promise<void> {
    return this.#run(() =>
      transaction(this.#db, () => {
        this.#db.exec(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`);
        this.#db.exec(
          `CREATE TABLE ${PROGRESS_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
        );
        this.#putProgress(entries);
      })
    );
  }

  endProgress(): Promise<void> {
    return this.#run(() => this.#db.exec(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`));
  }

  empty(tables: readonly TableSpec[]): Promise<void> {
    return this.#run(() =>
      transaction(this.#db, () => {
        for (const t of [...tables].reverse()) this.#db.exec(`DELETE FROM ${quote(t.name)}`);
      })
    );
  }

  finish(): Promise<void> {
    return this.#run(() => this.#db.exec("PRAGMA optimize"));
  }

  close(): Promise<void> {
    this.#db.close();
    return Promise.resolve();
  }

  #putProgress(entries: Readonly<Record<string, string>>): void {
    const put = this.#db.prepare(
      `INSERT INTO ${PROGRESS_TABLE} (key, value) VALUES (?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    for (const [key, value] of Object.entries(entries)) put.run(key, value);
  }

  #hasProgressTable(): boolean {
    return this.#db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(PROGRESS_TABLE) !== undefined;
  }

  /** Runs `fn`, with SQLite's failures as EngramErrors naming the file. */
  #run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(translateSqliteError(err, { file: this.#file }));
    }
  }
}

/** A canonical column's SQLite name: `rowid` for seq, else its own or the table's rename. */
function sqliteColumn(table: TableSpec, name: string): string {
  return name === SEQ ? "rowid" : quote(sqliteName(table, name));
}

function sqliteName(table: TableSpec, name: string): string {
  return table.sqliteNames?.[name] ?? name;
}

/** A canonical value as SQLite stores it: flags 0/1, vectors Float32 BLOBs. */
function toSqlite(value: Value): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (Array.isArray(value)) {
    const floats = Float32Array.from(value);
    return new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
  }
  return value;
}

/** A SQLite row in canonical values. */
function fromSqlite(table: TableSpec, row: Record<string, SQLInputValue>): Row {
  const out: Row = {};
  for (const [name, value] of Object.entries(row)) {
    if (value === null) out[name] = null;
    else if (table.booleans?.includes(name)) out[name] = Number(value) !== 0;
    else if (table.vectors?.includes(name)) {
      const bytes = (value as Uint8Array).slice();
      out[name] = float32Values(new Float32Array(bytes.buffer, 0, bytes.byteLength / 4));
    } else if (typeof value === "bigint") out[name] = Number(value);
    else out[name] = value as string | number;
  }
  return out;
}

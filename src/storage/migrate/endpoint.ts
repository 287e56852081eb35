/**
 * @module One side of `engram migrate`: a SQLite file or a PostgreSQL database, read and written
 * table by table in canonical rows (tables.ts), with the copy's progress kept in the target itself
 * so that a stopped copy resumes where it stopped (docs/architecture.md#postgresql-engram-migrate).
 */
import type { Columns, ColumnSet, Row, TableSpec, Watermark } from "./tables.ts";

/** The table a target keeps the copy's progress in, until the copy is verified. */
export const PROGRESS_TABLE = "engram_migration";

/** A database `engram migrate` copies from or into. */
export interface Endpoint {
  /** Which backend. */
  readonly kind: "sqlite" | "postgres";
  /** For messages and the progress record: the file, or `host:port/database` (never a password). */
  readonly label: string;
  /** The tables this database holds, derived ones and the progress table left out. */
  tableNames(): Promise<string[]>;
  /** The table's columns by canonical name, sorted (`seq` among them where the table has one). */
  columns(table: TableSpec): Promise<ColumnSet>;
  /** How many rows the table holds. */
  count(table: TableSpec): Promise<number>;
  /** Up to `limit` rows after `after` (from the first when null), in key order. */
  read(table: TableSpec, columns: Columns, after: Watermark | null, limit: number): Promise<Row[]>;
  /** Inserts `rows` and records `progress` (key → value) in one transaction. */
  write(
    table: TableSpec,
    columns: Columns,
    rows: readonly Row[],
    progress: Readonly<Record<string, string>>,
  ): Promise<void>;
  /** The recorded progress (key → value), or null when no copy into this database is under way. */
  progress(): Promise<Map<string, string> | null>;
  /** Starts a copy's progress record (emptying any earlier one) with `entries`. */
  startProgress(entries: Readonly<Record<string, string>>): Promise<void>;
  /** Drops the progress record: the copy is complete and verified. */
  endProgress(): Promise<void>;
  /** Deletes every row of `tables` (children first), and the derived data with them. */
  empty(tables: readonly TableSpec[]): Promise<void>;
  /** After the last row: what the backend derives or counts itself (sequences, word lists). */
  finish(tables: readonly TableSpec[]): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** Double-quotes an identifier (the names come from engram's own schema, never from the user). */
export function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The condition "the row's key is after the watermark", lexicographically over the key columns:
 * `a > ?` or `a = ? AND b > ?` …, each column written by `column` (with its collation) and each
 * value by `param` (a placeholder, given the value's index in `after`).
 */
export function afterCondition(
  key: readonly string[],
  column: (name: string) => string,
  param: (index: number) => string,
): string {
  return key.map((_, i) =>
    "(" + key.slice(0, i + 1).map((name, j) =>
      `${column(name)} ${j === i ? ">" : "="} ${param(j)}`
    ).join(" AND ") + ")"
  ).join(" OR ");
}

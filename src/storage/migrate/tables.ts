/**
 * @module The tables `engram migrate` copies, in an order that satisfies every foreign key, and what
 * each backend stores differently (docs/architecture.md#postgresql-engram-migrate).
 *
 * Both schemas keep the same tables and columns (src/storage/postgres/schema.ts mirrors
 * src/storage/sqlite/migrations.ts), so a row is copied as it is. Three things differ: SQLite's
 * rowid is PostgreSQL's `seq` (both kept, so insertion order and the chunk a vector belongs to
 * survive the copy; named here); a flag is 0/1 in SQLite and a boolean in PostgreSQL; a vector is
 * a Float32 BLOB in SQLite and a `real[]` in PostgreSQL (both read from PostgreSQL's column types,
 * so a column added later is copied right without a change here). The derived tables (SQLite's
 * FTS5 tables, PostgreSQL's `fts` column and word list) are not copied: the target's own triggers
 * rebuild them from the chunks as they arrive.
 */

/** One table as the copy sees it. */
export interface TableSpec {
  /** The table's name in both schemas. */
  name: string;
  /**
   * The columns the copy walks the table in order of (and records as its watermark): `seq` for
   * tables with a row id (SQLite's rowid), else the primary key.
   */
  key: readonly string[];
  /** Columns SQLite stores as 0/1 and PostgreSQL as boolean (from PostgreSQL's schema). */
  booleans?: readonly string[];
  /** Columns holding a Float32 vector: a BLOB in SQLite, `real[]` in PostgreSQL (likewise). */
  vectors?: readonly string[];
  /** A column's SQLite name, where it differs from PostgreSQL's. */
  sqliteNames?: Readonly<Record<string, string>>;
}

/** The row id both backends keep: SQLite's rowid, PostgreSQL's identity column. */
export const SEQ = "seq";

const bySeq = (name: string): TableSpec => ({ name, key: [SEQ] });

/** Every table engram keeps, parents before children. */
export const TABLES: readonly TableSpec[] = [
  bySeq("brains"),
  bySeq("documents"),
  bySeq("document_versions"),
  bySeq("chunks"),
  {
    name: "chunk_vectors",
    key: ["chunk_seq", "model"],
    sqliteNames: { chunk_seq: "chunk_rowid" },
  },
  { name: "document_tags", key: ["document_id", "tag"] },
  bySeq("links"),
  bySeq("document_deletions"),
  { name: "document_provenance", key: ["document_id"] },
  bySeq("sessions"),
  bySeq("messages"),
  bySeq("jobs"),
  { name: "locks", key: ["name"] },
  bySeq("oauth_clients"),
  bySeq("tokens"),
  bySeq("oauth_grants"),
  { name: "oauth_codes", key: ["code_hash"] },
  { name: "oauth_refresh_tokens", key: ["id"] },
  { name: "oauth_pairing_codes", key: ["id"] },
  bySeq("audit"),
  bySeq("audit_drops"),
  { name: "upstream_servers", key: ["name"] },
  { name: "capability_pins", key: ["server", "kind", "name"] },
  { name: "capability_sightings", key: ["server", "kind", "name"] },
  bySeq("upstream_traces"),
  bySeq("trusted_review_keys"),
  { name: "upstream_credentials", key: ["server"] },
];

/** A value as both sides see it: text, a number, a flag, a vector of Float32 values, or null. */
export type Value = string | number | boolean | number[] | null;

/** A row by canonical column name (PostgreSQL's names). */
export type Row = Record<string, Value>;

/** The key values of the last row copied, in the order of `TableSpec.key`. */
export type Watermark = Value[];

/** A table's column names as the copy uses them (PostgreSQL's), sorted; `seq` among them. */
export type Columns = readonly string[];

/** A table's columns as one side sees them. */
export interface ColumnSet {
  names: Columns;
  /** Flag columns; only PostgreSQL can tell (SQLite's are integers). */
  booleans: string[];
  /** Vector columns; only PostgreSQL can tell. */
  vectors: string[];
}

/** Float32 values as plain numbers, each exactly a Float32 (what both backends hold). */
export function float32Values(values: ArrayLike<number>): number[] {
  return Array.from(values, (v) => Math.fround(v));
}

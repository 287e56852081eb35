/**
 * @module What a database file holds and whether it is sound: the checks and counts backup and
 * restore report (integrity, schema version, brains, documents, versions).
 */
import { DatabaseSync } from "node:sqlite";
import { EngramError } from "../../../core/errors.ts";
import { MIGRATIONS } from "../migrations.ts";

/** The counts and schema version of one database. */
export interface DatabaseSummary {
  /** `PRAGMA user_version`: the engram schema version. */
  schema_version: number;
  brains: number;
  /** Live documents (not forgotten). */
  documents: number;
  /** Every stored version of every document, forgotten ones included. */
  versions: number;
  sessions: number;
}

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_MAGIC = "SQLite format 3\0";

/** Counts what `db` holds. Assumes an engram schema (see assertEngramSchema). */
export function summarizeDatabase(db: DatabaseSync): DatabaseSummary {
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
  return {
    schema_version: schemaVersion(db),
    brains: count("SELECT count(*) AS n FROM brains"),
    documents: count("SELECT count(*) AS n FROM documents WHERE deleted_at IS NULL"),
    versions: count("SELECT count(*) AS n FROM document_versions"),
    sessions: count("SELECT count(*) AS n FROM sessions"),
  };
}

/**
 * What makes a database worth protecting from an accidental restore: any document (forgotten ones
 * too: their versions are kept), any session, or any brain but `default`. Empty when nothing.
 */
export function describeHeldData(db: DatabaseSync): string {
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
  const held = [
    [count("SELECT count(*) AS n FROM documents"), "document"],
    [count("SELECT count(*) AS n FROM sessions"), "session"],
    [count("SELECT count(*) AS n FROM brains WHERE slug <> 'default'"), "brain besides default"],
  ] as const;
  return held.filter(([n]) => n > 0).map(([n, what]) => `${n} ${plural(n, what)}`).join(", ");
}

function plural(n: number, what: string): string {
  if (n === 1) return what;
  const [head, ...rest] = what.split(" ");
  return [`${head}s`, ...rest].join(" ");
}

/** The engram schema version of `db`. */
function schemaVersion(db: DatabaseSync): number {
  return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

/**
 * Fails unless `file` starts with a SQLite header and is at least as long as the header says: a
 * cheap, clear answer for a wrong or truncated file before SQLite reads any page.
 */
export function assertSqliteFile(file: string, what: string): void {
  const handle = Deno.openSync(file, { read: true });
  const header = new Uint8Array(100);
  let size: number;
  try {
    size = handle.statSync().size;
    let read = 0;
    while (read < header.length) {
      const n = handle.readSync(header.subarray(read));
      if (n === null) break;
      read += n;
    }
  } finally {
    handle.close();
  }
  if (new TextDecoder().decode(header.subarray(0, 16)) !== SQLITE_MAGIC) {
    throw new EngramError(
      "invalid_argument",
      `${what} ${file} is not a SQLite database; pass a file written by engram backup`,
    );
  }
  const view = new DataView(header.buffer);
  // Bytes 16-17: page size (1 means 65536); 28-31: page count, valid when bytes 24-27 (change
  // counter) equal 92-95 (version-valid-for), as SQLite itself decides.
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = view.getUint32(28);
  const countValid = view.getUint32(24) === view.getUint32(92);
  if (size < 100 || (countValid && pages > 0 && size < pageSize * pages)) {
    throw new EngramError(
      "invalid_argument",
      `${what} ${file} is truncated (${size} bytes, its header says ${
        pageSize * pages
      }); use a complete copy`,
    );
  }
}

/**
 * Fails unless `db` passes `PRAGMA integrity_check` and carries an engram schema this build can
 * open (an older one is migrated when opened; a newer one needs a newer engram).
 */
function assertSoundEngramDatabase(db: DatabaseSync, file: string, what: string): void {
  let problems: string[];
  try {
    problems = (db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[])
      .map((r) => r.integrity_check);
  } catch (err) {
    throw new EngramError(
      "invalid_argument",
      `${what} ${file} is not a readable database (${(err as Error).message}); use another copy`,
      { cause: err },
    );
  }
  if (problems.length !== 1 || problems[0] !== "ok") {
    throw new EngramError(
      "invalid_argument",
      `${what} ${file} is damaged (integrity check: ${
        problems.slice(0, 3).join("; ")
      }); use another copy`,
    );
  }
  const version = schemaVersion(db);
  const tables = new Set(
    (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[])
      .map((r) => r.name),
  );
  if (version < 1 || !tables.has("brains") || !tables.has("documents")) {
    throw new EngramError(
      "invalid_argument",
      `${what} ${file} is a SQLite database but not an engram one (no engram schema); pass a file written by engram backup`,
    );
  }
  if (version > MIGRATIONS.length) {
    throw new EngramError(
      "invalid_argument",
      `${what} ${file} has schema version ${version}, newer than this engram knows (${MIGRATIONS.length}); restore it with a newer engram`,
    );
  }
}

/**
 * Opens a freshly written copy (a backup, or a backup about to be restored), checks it is a sound
 * engram database and counts what it holds, and leaves it one self-contained file in
 * rollback-journal mode (its pages may carry the live database's WAL flag), so it moves without a
 * -wal. `shownAs` and `what` name it in errors ("backup /x.db").
 */
export function verifyCopy(
  file: string,
  o: { shownAs: string; what: string },
): DatabaseSummary {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { enableForeignKeyConstraints: false });
  } catch (err) {
    throw new EngramError(
      "invalid_argument",
      `${o.what} ${o.shownAs} cannot be opened (${(err as Error).message}); use another copy`,
      { cause: err },
    );
  }
  try {
    assertSoundEngramDatabase(db, o.shownAs, o.what);
    const summary = summarizeDatabase(db);
    db.exec("PRAGMA journal_mode = DELETE");
    return summary;
  } finally {
    db.close();
  }
}

/**
 * @module `engram restore`: replace the configured database with a backup, checked first, swapped
 * in atomically, and never under a running engram process.
 *
 * Another process with the database open is detected by SQLite itself: leaving WAL mode needs the
 * only connection, so `PRAGMA journal_mode = DELETE` stays `wal` (or reports locked) while anyone
 * else has the file open; the exclusive lock then taken keeps newcomers out until the new file is
 * in place. With the old database out of WAL mode it has no -wal/-shm left, so none can be applied
 * to the restored file by mistake.
 */
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { EngramError } from "../../../core/errors.ts";
import { isBusyError, isCorruptError, translateSqliteError } from "../database.ts";
import {
  assertSqliteFile,
  type DatabaseSummary,
  describeHeldData,
  verifyCopy,
} from "./database_summary.ts";
import {
  createTempBeside,
  fileExists,
  fsyncDir,
  fsyncFile,
  moveIntoPlace,
  removeIfPresent,
  sameFile,
  SIDE_FILES,
} from "./durable_file.ts";

/** What a restore put in place (the counts are the backup's, before any migration). */
export interface RestoreResult extends DatabaseSummary {
  /** The backup restored from. */
  file: string;
  /** The database file replaced or created. */
  database: string;
  /** An existing database was replaced (else created). */
  replaced: boolean;
}

/**
 * Checks `source` and makes it the database at `dbFile` (both absolute). Refuses a target that
 * holds data unless `force`, and one another process has open (`busy`).
 */
export function restoreDatabase(
  source: string,
  dbFile: string,
  options: { force?: boolean } = {},
): RestoreResult {
  assertSourceFile(source, dbFile);
  Deno.mkdirSync(dirname(dbFile), { recursive: true });
  const temp = createTempBeside(dbFile);
  try {
    copyFile(source, temp);
    const summary = verifyCopy(temp, { shownAs: source, what: "backup" });
    const replaced = replaceDatabase(temp, dbFile, options.force === true);
    return { file: source, database: dbFile, replaced, ...summary };
  } finally {
    for (const path of [temp, ...SIDE_FILES.map((s) => temp + s)]) removeIfPresent(path);
  }
}

/** The source exists, is a file, is not the database itself, and looks like a whole SQLite file. */
function assertSourceFile(source: string, dbFile: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(source);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new EngramError("not_found", `backup ${source} not found; check the path`, {
        cause: err,
      });
    }
    throw err;
  }
  if (!info.isFile) {
    throw new EngramError(
      "invalid_argument",
      `backup ${source} is not a file; pass a file written by engram backup`,
    );
  }
  if (sameFile(info, dbFile)) {
    throw new EngramError(
      "invalid_argument",
      `${source} is the live database itself; pass a backup file`,
    );
  }
  assertSqliteFile(source, "backup");
}

/** Copies `source` into the (empty, owner-only) `temp` and flushes it. */
function copyFile(source: string, temp: string): void {
  const from = Deno.openSync(source, { read: true });
  const to = Deno.openSync(temp, { write: true, truncate: true });
  try {
    const buf = new Uint8Array(1 << 20);
    for (let n = from.readSync(buf); n !== null; n = from.readSync(buf)) {
      let off = 0;
      while (off < n) off += to.writeSync(buf.subarray(off, n));
    }
  } finally {
    from.close();
    to.close();
  }
}

/** Puts `temp` at `dbFile`; returns whether a database was there. */
function replaceDatabase(temp: string, dbFile: string, force: boolean): boolean {
  fsyncFile(temp);
  if (!fileExists(dbFile)) {
    // Side files without their database belong to a database that is gone.
    for (const s of SIDE_FILES) removeIfPresent(dbFile + s);
    try {
      moveIntoPlace(temp, dbFile, { overwrite: false });
    } catch (err) {
      if (err instanceof EngramError && err.code === "conflict") throw openElsewhere(dbFile);
      throw err;
    }
    return false;
  }
  const db = lockExclusively(dbFile);
  try {
    if (db) {
      if (!force) {
        const held = heldData(db);
        if (held !== "") {
          throw new EngramError(
            "conflict",
            `database ${dbFile} already holds data (${held}); pass --force to replace it with the backup, or --data DIR to restore into another directory`,
          );
        }
      }
    } else if (!force) {
      throw new EngramError(
        "conflict",
        `database ${dbFile} is unreadable (not a database or corrupt); pass --force to replace it with the backup`,
      );
    }
    for (const s of SIDE_FILES) removeIfPresent(dbFile + s);
    Deno.renameSync(temp, dbFile);
    fsyncDir(dirname(dbFile));
    return true;
  } finally {
    if (db) {
      if (db.isTransaction) db.exec("ROLLBACK");
      db.close();
    }
  }
}

/**
 * A connection holding the database's exclusive lock, or null when the file is not a readable
 * database (nothing can have it open as engram then). `busy` when another process has it open.
 */
function lockExclusively(dbFile: string): DatabaseSync | null {
  const db = new DatabaseSync(dbFile, { timeout: 0, enableForeignKeyConstraints: false });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    const { journal_mode } = db.prepare("PRAGMA journal_mode = DELETE").get() as {
      journal_mode: string;
    };
    if (journal_mode !== "delete") throw openElsewhere(dbFile);
    db.exec("BEGIN EXCLUSIVE");
    return db;
  } catch (err) {
    db.close();
    if (err instanceof EngramError) throw err;
    if (isCorruptError(err)) return null;
    if (isBusyError(err)) throw openElsewhere(dbFile, err);
    throw translateSqliteError(err);
  }
}

/** The refusal while another process has the database open. */
function openElsewhere(dbFile: string, cause?: unknown): EngramError {
  return new EngramError(
    "busy",
    `database ${dbFile} is open in another engram process; stop engram serve, engram stdio and any running engram command using it, then run engram restore again`,
    { cause },
  );
}

/** What the target holds (see describeHeldData); an empty or pre-engram file holds nothing. */
function heldData(db: DatabaseSync): string {
  const tables = db.prepare(
    "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name IN ('brains', 'documents', 'sessions')",
  ).get() as { n: number };
  return Number(tables.n) === 3 ? describeHeldData(db) : "";
}

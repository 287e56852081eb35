/** @module Opening the SQLite file with the pragmas engram relies on, and SQLite error translation. */
import { DatabaseSync } from "node:sqlite";
import { EngramError, storageCorrupt, storageFull } from "../../core/errors.ts";
import { migrate } from "./migrations.ts";

/** Something that prepares statements: a connection, or the store's statement cache. */
export type Prepares = Pick<DatabaseSync, "prepare">;

/** How long a writer waits for another process's lock before `busy`. */
export const BUSY_TIMEOUT_MS = 5000;

/** Options for opening the database. */
export interface OpenOptions {
  /** `NORMAL` survives a killed process (WAL); `FULL` also survives power loss, at a write-speed cost. */
  synchronous?: "NORMAL" | "FULL";
}

/** Opens (creating if needed) and migrates the database at `file`, failing with a clear message. */
export function openDatabase(file: string, options: OpenOptions = {}): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    createPrivately(file);
    db = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: BUSY_TIMEOUT_MS });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.exec("PRAGMA foreign_keys = ON");
    // FTS writes touch many pages; checkpointing every 1,000 pages (the default) fsyncs far too
    // often. ~40 MB of WAL between checkpoints, trimmed back to 64 MB at most afterwards.
    db.exec("PRAGMA wal_autocheckpoint = 10000");
    db.exec("PRAGMA journal_size_limit = 67108864");
    migrate(db);
    assertWritable(db);
    return db;
  } catch (err) {
    try {
      db?.close();
    } catch {
      // Already failing; the original error is the one to report.
    }
    throw describeOpenError(file, err);
  }
}

/**
 * SQLite silently opens a file it may not write (mode 0444, immutable, read-only mount) read-only,
 * and an up-to-date schema needs no write; probe with a rolled-back write so the failure shows
 * now, naming the file, instead of at the first remember.
 */
function assertWritable(db: DatabaseSync): void {
  const { user_version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
  // No busy wait: a read-only file fails at once with READONLY; a file locked by another writer
  // is writable, and start-up need not queue behind that writer to learn it.
  db.exec("PRAGMA busy_timeout = 0");
  try {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(`PRAGMA user_version = ${user_version}`);
    } finally {
      db.exec("ROLLBACK");
    }
  } catch (err) {
    if (!isBusyError(err)) throw err;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/** Maps a SQLite failure at start-up to an actionable EngramError. */
function describeOpenError(file: string, err: unknown): EngramError {
  if (err instanceof EngramError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (isCorruptError(err) || isFullError(err)) return translateSqliteError(err, { file });
  if (/readonly|read-only|permission denied|unable to open/i.test(msg)) {
    return new EngramError(
      "internal",
      `database ${file} cannot be opened for writing (${msg}); fix the file and directory permissions or point --data at a writable directory`,
      { cause: err },
    );
  }
  return translateSqliteError(err, { file });
}

/**
 * Maps runtime SQLite errors: lock timeouts become `busy` (exit 75), a damaged file
 * `storage_corrupt`, a full disk `storage_full`, the rest `internal`. `file` (the database) is
 * named in the storage codes' messages for the CLI and the operator log, never for remote clients.
 */
export function translateSqliteError(
  err: unknown,
  options: { file?: string } = {},
): EngramError {
  if (err instanceof EngramError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (isBusyError(err)) {
    return new EngramError(
      "busy",
      `the database is locked by another engram process (waited ${BUSY_TIMEOUT_MS} ms); try again`,
      { cause: err },
    );
  }
  const file = options.file === ":memory:" ? undefined : options.file;
  if (isCorruptError(err)) {
    const notDatabase = primaryCode(err) === SQLITE_NOTADB || /not a database/i.test(msg);
    return storageCorrupt(file, msg, { cause: err, notDatabase });
  }
  if (isFullError(err)) return storageFull(file && dirname(file), msg, { cause: err });
  return new EngramError("internal", `storage error: ${msg}`, { cause: err });
}

/**
 * Runs `fn` inside `BEGIN IMMEDIATE` so concurrent writers from other processes queue instead of
 * failing midway. (Writes inside a unit of work do not come here: see SqliteConnection.write.)
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = fn();
    db.exec("COMMIT");
    return out;
  } catch (err) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // The transaction may already be gone (e.g. SQLITE_FULL); the original error matters.
    }
    throw err;
  }
}

/**
 * Creates a missing database file readable by its owner alone. Notes are private, and SQLite gives
 * the -wal and -shm files the main file's mode, so all three stay 0600 whatever the umask.
 */
function createPrivately(file: string): void {
  if (file === ":memory:") return;
  try {
    Deno.openSync(file, { createNew: true, write: true, mode: 0o600 }).close();
  } catch {
    // It exists, or cannot be created: SQLite's own open then reports it with the usual message.
  }
}

/** SQLite saying another connection holds the lock (so waiting or retrying may help). */
export function isBusyError(err: unknown): boolean {
  return /database is locked|database is busy|SQLITE_BUSY/i.test(messageOf(err));
}

/** The SQLite primary result codes engram tells apart. */
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_NOTADB = 26;

/** SQLite saying the file is not a database, or a damaged one. */
export function isCorruptError(err: unknown): boolean {
  const code = primaryCode(err);
  if (code !== undefined) return code === SQLITE_CORRUPT || code === SQLITE_NOTADB;
  return /not a database|malformed|corrupt/i.test(messageOf(err));
}

/** SQLite saying the disk (or the database's `max_page_count`) is full. */
export function isFullError(err: unknown): boolean {
  const code = primaryCode(err);
  if (code !== undefined) return code === SQLITE_FULL;
  return /database or disk is full/i.test(messageOf(err));
}

/** The primary result code node:sqlite puts on its errors (`errcode` may be an extended one). */
function primaryCode(err: unknown): number | undefined {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** The directory part of a path. */
function dirname(file: string): string {
  const at = file.lastIndexOf("/");
  return at <= 0 ? (at === 0 ? "/" : ".") : file.slice(0, at);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

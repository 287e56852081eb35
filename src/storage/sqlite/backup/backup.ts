/**
 * @module `engram backup`: an online, consistent copy of the database through SQLite's backup API,
 * copying every page in one step (`rate: -1`), so inside one read transaction: the copy is one
 * committed state even while other processes keep writing (WAL readers never block writers), and a
 * write by another process cannot restart it midway as it would between smaller steps. (`VACUUM
 * INTO` would compact too, but Deno refuses the ATTACH it needs unless every permission is granted.)
 */
import { resolve } from "node:path";
import { backup } from "node:sqlite";
import { EngramError } from "../../../core/errors.ts";
import { openDatabase, translateSqliteError } from "../database.ts";
import { type DatabaseSummary, verifyCopy } from "./database_summary.ts";
import {
  createTempBeside,
  fileExists,
  moveIntoPlace,
  removeIfPresent,
  sameFile,
  SIDE_FILES,
} from "./durable_file.ts";

/** What a backup wrote. */
export interface BackupResult extends DatabaseSummary {
  /** Absolute path of the backup. */
  file: string;
  bytes: number;
}

/**
 * Copies the database at `dbFile` to `target` (absolute), verified and owner-only. A crash leaves
 * at most a hidden temp file beside `target`, never a partial `target`.
 */
export async function backupDatabase(
  dbFile: string,
  target: string,
  options: { force?: boolean; synchronous?: "NORMAL" | "FULL" } = {},
): Promise<BackupResult> {
  assertTargetUsable(dbFile, target, options.force === true);
  if (!fileExists(dbFile)) {
    throw new EngramError(
      "not_found",
      `no database at ${dbFile} to back up; pass --data DIR (or set ENGRAM_DATA_DIR) to the data directory that holds engram.db`,
    );
  }
  const temp = createTempInDir(target);
  try {
    const db = openDatabase(dbFile, { synchronous: options.synchronous });
    try {
      await backup(db, temp, { rate: -1 });
    } catch (err) {
      throw translateSqliteError(err);
    } finally {
      db.close();
    }
    const summary = verifyCopy(temp, { shownAs: temp, what: "backup copy" });
    moveIntoPlace(temp, target, { overwrite: options.force === true });
    return { file: target, bytes: Deno.statSync(target).size, ...summary };
  } finally {
    for (const path of [temp, ...SIDE_FILES.map((s) => temp + s)]) removeIfPresent(path);
  }
}

/** Refuses the database's own files and an existing target without `force`, before any work. */
function assertTargetUsable(dbFile: string, target: string, force: boolean): void {
  const live = resolve(dbFile);
  const isLive = () =>
    new EngramError(
      "invalid_argument",
      `${target} is the live database; write the backup to a file outside it`,
    );
  if ([live, ...SIDE_FILES.map((s) => live + s)].includes(resolve(target))) {
    throw isLive();
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(target);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  if (sameFile(info, dbFile)) throw isLive();
  if (info.isDirectory) {
    throw new EngramError(
      "invalid_argument",
      `${target} is a directory; give the backup a file name, e.g. ${target}/engram-backup.db`,
    );
  }
  if (!force) {
    throw new EngramError(
      "conflict",
      `${target} already exists; choose another file or pass --force to overwrite it`,
    );
  }
}

/** The temp file beside `target`, with a clear error when its directory is missing. */
function createTempInDir(target: string): string {
  try {
    return createTempBeside(target);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new EngramError(
        "not_found",
        `directory of ${target} does not exist; create it first or choose another path`,
        { cause: err },
      );
    }
    throw err;
  }
}

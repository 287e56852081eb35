/**
 * @module Writing a file so a crash never leaves half of it under its real name: build it under a
 * private temporary name in the same directory, fsync it, then move it into place and fsync the
 * directory (a rename is only durable once the directory entry is).
 */
import { basename, dirname, join } from "node:path";
import { EngramError } from "../../../core/errors.ts";

/** Owner read/write only: backups and databases hold every note and token hash. */
const PRIVATE_FILE_MODE = 0o600;

/** A fresh, empty, owner-only file next to `target`, named so it is obviously not the real one. */
export function createTempBeside(target: string): string {
  const name = `.${basename(target)}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  const path = join(dirname(target), name);
  const file = Deno.openSync(path, { createNew: true, write: true, mode: PRIVATE_FILE_MODE });
  file.close();
  // The mode given to open is filtered by the umask; set it outright.
  Deno.chmodSync(path, PRIVATE_FILE_MODE);
  return path;
}

/** Flushes a file's contents to disk. */
export function fsyncFile(path: string): void {
  const file = Deno.openSync(path, { read: true, write: true });
  try {
    file.syncSync();
  } finally {
    file.close();
  }
}

/** Flushes a directory entry (a rename or link into it) to disk. */
export function fsyncDir(dir: string): void {
  const handle = Deno.openSync(dir, { read: true });
  try {
    handle.syncSync();
  } finally {
    handle.close();
  }
}

/**
 * Moves the finished temp file to `target`. Without `overwrite`, a hard link makes "only if absent"
 * atomic (rename would silently replace a file created meanwhile). The temp file is gone afterwards.
 */
export function moveIntoPlace(
  temp: string,
  target: string,
  options: { overwrite: boolean },
): void {
  fsyncFile(temp);
  if (options.overwrite) Deno.renameSync(temp, target);
  else {
    try {
      Deno.linkSync(temp, target);
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) {
        throw new EngramError(
          "conflict",
          `${target} already exists; choose another file or pass --force to overwrite it`,
          { cause: err },
        );
      }
      throw err;
    } finally {
      removeIfPresent(temp);
    }
  }
  fsyncDir(dirname(target));
}

/** Deletes a file, ignoring one that is not there. */
export function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

/** Whether something exists at `path`; errors other than "not found" (permissions) are thrown. */
export function fileExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** The files SQLite keeps beside a database; stale ones must never meet another database. */
export const SIDE_FILES = ["-wal", "-shm", "-journal"];

/** Whether `info` (a stat) is the file at `path` (same device and inode: links, `..`, symlinks). */
export function sameFile(info: Deno.FileInfo, path: string): boolean {
  try {
    const other = Deno.statSync(path);
    return info.ino !== null && info.dev === other.dev && info.ino === other.ino;
  } catch {
    return false;
  }
}

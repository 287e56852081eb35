/**
 * @module Reading exactly the file checkFile approved: open once, verify what was opened, read
 * from that descriptor — never by path again, so a file swapped for a link in between is refused.
 *
 * The descriptor calls are synchronous: node:fs's promise API costs about half a millisecond per
 * file in Deno (five times the read itself), which a folder ingest pays thousands of times. Reads
 * go a mebibyte at a time and yield between chunks, so a big file does not stall a server.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { EngramError } from "../core/errors.ts";
import { type CheckedFile, MAX_FILE_BYTES, vanishedOr } from "./file_access.ts";

/** Largest single read; files are at most MAX_FILE_BYTES. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of `file`, read from one descriptor proven to be the checked real path: the last path
 * component may not be a link (O_NOFOLLOW), and its device and inode must match the checked path.
 * `name` is the path as the caller gave it, for messages.
 */
export async function readCheckedFile(file: CheckedFile, name: string): Promise<Uint8Array> {
  let fd: number;
  try {
    fd = openSync(file.realPath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT") {
      throw new EngramError("not_found", `file ${name} does not exist (or is a broken link)`);
    }
    if (code === "ELOOP") throw changed(file, name);
    throw new EngramError("forbidden", `cannot read ${name}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  try {
    const size = verifyOpened(fd, file, name);
    return await readAll(fd, { name, size });
  } finally {
    closeSync(fd);
  }
}

function changed(file: CheckedFile, name: string): EngramError {
  return new EngramError(
    "forbidden",
    `${name} changed while it was being read (${file.realPath} is no longer the file that was checked); try again`,
  );
}

/**
 * Throws unless the descriptor is the regular file at the checked real path; returns its size.
 * The open refused a link as the last component; the path must still name that very file (same
 * device and inode) and still be link-free. The kernel's own name for the descriptor
 * (/proc/self/fd) would be stronger, but Deno lets only a process with every permission read it,
 * and engram always narrows its permissions first.
 */
function verifyOpened(fd: number, file: CheckedFile, name: string): number {
  const opened = fstatSync(fd);
  if (!opened.isFile()) throw changed(file, name);
  let now: Deno.FileInfo;
  let real: string;
  try {
    now = Deno.lstatSync(file.realPath);
    real = Deno.realPathSync(file.realPath);
  } catch (err) {
    // Removed since it was opened: gone, as for the check before; anything else is a change.
    if (err instanceof Deno.errors.NotFound) throw vanishedOr(err, name);
    throw changed(file, name);
  }
  if (
    !now.isFile || now.dev !== opened.dev || now.ino !== opened.ino || real !== file.realPath
  ) {
    throw changed(file, name);
  }
  return opened.size;
}

async function readAll(fd: number, o: { name: string; size: number }): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    // Sized from fstat so a small file takes one read plus the one that sees its end.
    const buffer = new Uint8Array(Math.min(Math.max(o.size - total, 0) + 1, CHUNK_BYTES));
    if (total >= CHUNK_BYTES) await new Promise((resolve) => setTimeout(resolve, 0));
    const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    // The size was checked by path; a file that grew since is held to the same limit.
    if (total > MAX_FILE_BYTES) {
      throw new EngramError(
        "file_too_large",
        `${o.name} grew past the 25 MiB limit while it was being read`,
      );
    }
    chunks.push(buffer.subarray(0, bytesRead));
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

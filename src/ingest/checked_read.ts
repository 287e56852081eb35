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
import { type CheckedFile, MAX_FILE_BYTES } from "./file_access.ts";

/** Largest single read; files are at most MAX_FILE_BYTES. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of `file`, read from one handle that is proven to be the checked real path: the last
 * path component may not be a link (O_NOFOLLOW), and the handle's own path (Linux
 * /proc/self/fd) or, where that is unavailable, its device and inode must match the checked path.
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
    const size = await verifyOpened(fd, file, name);
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

/** Throws unless the open handle is the regular file at the checked real path; returns its size. */
async function verifyOpened(fd: number, file: CheckedFile, name: string): Promise<number> {
  const opened = fstatSync(fd);
  if (!opened.isFile()) throw changed(file, name);
  const where = openedPath(fd);
  if (where !== null) {
    // The kernel's own name for the open file: whatever links led there, this is where it is.
    if (where !== file.realPath) throw changed(file, name);
    return opened.size;
  }
  // Without /proc (macOS) compare identities: the path must still be that very file, link-free.
  let now: Deno.FileInfo;
  let real: string;
  try {
    now = await Deno.lstat(file.realPath);
    real = await Deno.realPath(file.realPath);
  } catch {
    throw changed(file, name);
  }
  if (
    !now.isFile || now.dev !== opened.dev || now.ino !== opened.ino || real !== file.realPath
  ) {
    throw changed(file, name);
  }
  return opened.size;
}

/** The path the kernel holds for an open descriptor (Linux), or null where it cannot be read. */
function openedPath(fd: number): string | null {
  try {
    return Deno.readLinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
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

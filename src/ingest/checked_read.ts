/**
 * @module Reading exactly the file checkFile approved: open once, verify what was opened, read
 * from that handle — never by path again, so a file swapped for a link in between is refused.
 */
import { constants, promises as fsp } from "node:fs";
import { EngramError } from "../core/errors.ts";
import { type CheckedFile, MAX_FILE_BYTES } from "./file_access.ts";

type FileHandle = Awaited<ReturnType<typeof fsp.open>>;

/** Largest single read; files are at most MAX_FILE_BYTES. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of `file`, read from one handle that is proven to be the checked real path: the last
 * path component may not be a link (O_NOFOLLOW), and the handle's own path (Linux
 * /proc/self/fd) or, where that is unavailable, its device and inode must match the checked path.
 * `name` is the path as the caller gave it, for messages.
 */
export async function readCheckedFile(file: CheckedFile, name: string): Promise<Uint8Array> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(file.realPath, constants.O_RDONLY | constants.O_NOFOLLOW);
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
    const size = await verifyOpened(handle, file, name);
    return await readAll(handle, { name, size });
  } finally {
    await handle.close();
  }
}

function changed(file: CheckedFile, name: string): EngramError {
  return new EngramError(
    "forbidden",
    `${name} changed while it was being read (${file.realPath} is no longer the file that was checked); try again`,
  );
}

/** Throws unless the open handle is the regular file at the checked real path; returns its size. */
async function verifyOpened(handle: FileHandle, file: CheckedFile, name: string): Promise<number> {
  const opened = await handle.stat();
  if (!opened.isFile()) throw changed(file, name);
  const where = await openedPath(handle.fd);
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
async function openedPath(fd: number): Promise<string | null> {
  try {
    return await Deno.readLink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

async function readAll(
  handle: FileHandle,
  o: { name: string; size: number },
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    // Sized from fstat so a small file takes one read plus the one that sees its end.
    const buffer = new Uint8Array(Math.min(Math.max(o.size - total, 0) + 1, CHUNK_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
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

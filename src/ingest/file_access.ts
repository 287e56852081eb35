/**
 * @module Checking a file an agent asked for: only under the allowed roots, symlinks resolved
 * first, size-capped. checked_read.ts then reads exactly the file checked here.
 */
import { resolve } from "node:path";
import { EngramError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";

/** memory_ingest_file reads at most 25 MiB. */
export const MAX_FILE_BYTES = LIMITS.ingestFileBytes;

/** The two ways to let memory_ingest_file read `path`, for refusals. */
const HOW_TO_ALLOW = (path: string) =>
  `to allow it, add the folder holding ${path} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`;

/** A file that passed the checks. */
export interface CheckedFile {
  /** The real path (symlinks resolved). */
  realPath: string;
  size: number;
  /** The allowed root it lies under, or null when no roots are enforced (the operator's CLI). */
  root: string | null;
}

/**
 * Resolves `path` against `cwd`, follows symlinks, and checks the real path lies under one of
 * `roots` (also resolved), so neither `..` nor a link can escape. `roots: null` skips the root
 * check (the operator's own CLI); an empty list allows nothing.
 */
export async function checkFile(
  path: string,
  options: { roots: readonly string[] | null; cwd: string },
): Promise<CheckedFile> {
  const absolute = path.startsWith("/") ? path : `${options.cwd}/${path}`;
  if (options.roots !== null && options.roots.length === 0) {
    throw new EngramError(
      "forbidden",
      `reading files is off: no file roots are allowed in this session; ${HOW_TO_ALLOW(path)}`,
    );
  }
  const realRoots = options.roots === null ? null : await Promise.all(
    options.roots.map((r) => Deno.realPath(r).catch(() => null)),
  );
  const outside = (via: string) =>
    new EngramError(
      "forbidden",
      `${path}${via} is outside the allowed file roots (${options.roots!.join(", ")}); ${
        HOW_TO_ALLOW(path)
      }`,
    );
  let realPath: string;
  try {
    realPath = await Deno.realPath(absolute);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      // Outside the roots a missing file is refused like any other, so nothing there can be probed.
      const lexical = resolve(absolute);
      if (
        options.roots !== null &&
        !underRoot(lexical, [...options.roots.map((r) => resolve(r)), ...realRoots!])
      ) {
        throw outside("");
      }
      const tried = absolute === path ? "" : `, tried ${absolute}`;
      throw new EngramError(
        "not_found",
        `file ${path} does not exist (or is a broken link${tried})`,
      );
    }
    throw new EngramError("forbidden", `cannot read ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let root: string | null = null;
  if (realRoots !== null) {
    root = underRoot(realPath, realRoots);
    if (root === null) throw outside(realPath === absolute ? "" : ` (it resolves to ${realPath})`);
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(realPath);
  } catch (err) {
    throw vanishedOr(err, path);
  }
  if (info.isDirectory) {
    throw new EngramError(
      "invalid_argument",
      `${path} is a directory; give one file (engram ingest DIR walks a whole folder)`,
    );
  }
  if (!info.isFile) throw new EngramError("invalid_argument", `${path} is not a regular file`);
  if (info.size > MAX_FILE_BYTES) {
    throw new EngramError(
      "file_too_large",
      `${path} is ${
        (info.size / 1048576).toFixed(1)
      } MiB; the limit is 25 MiB — split it or ingest a smaller export`,
    );
  }
  return { realPath, size: info.size, root };
}

/**
 * The error for a file that could not be looked at again after an earlier check passed: removed in
 * between (another process, an editor's save) is `not_found`, as if it had never been there;
 * anything else is `forbidden` with the system's reason.
 */
export function vanishedOr(err: unknown, path: string): EngramError {
  if (err instanceof Deno.errors.NotFound) {
    return new EngramError("not_found", `file ${path} was removed while it was being checked`);
  }
  return new EngramError("forbidden", `cannot read ${path}: ${(err as Error).message}`, {
    cause: err,
  });
}

/** The first of `roots` that `path` lies in (or is), else null. */
function underRoot(path: string, roots: readonly (string | null)[]): string | null {
  return roots.find((r) =>
    r !== null && (path === r || path.startsWith(r.replace(/\/$/, "") + "/"))
  ) ?? null;
}

/** The brain path for a file: /ingest/<root folder name>/<path below the root>, else /ingest/<file name>. */
export function ingestPathFor(file: CheckedFile): string {
  if (file.root === null) return `/ingest/${file.realPath.split("/").pop()}`;
  const rootName = file.root.split("/").filter(Boolean).pop() ?? "root";
  return `/ingest/${rootName}${file.realPath.slice(file.root.replace(/\/$/, "").length)}`;
}

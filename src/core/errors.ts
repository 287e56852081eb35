/** @module The one error type engram raises, with the wire codes of docs/tools.md#errors. */

/** Error codes shared by tool results, HTTP statuses and CLI exit codes. */
export type ErrorCode =
  | "no_brain"
  | "not_found"
  | "invalid_argument"
  | "file_too_large"
  | "forbidden"
  | "conflict"
  | "not_implemented"
  | "provider_unavailable"
  | "rate_limited"
  | "busy"
  | "storage_corrupt"
  | "storage_full"
  | "internal";

/** Codes a caller may retry without changing anything. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set([
  "provider_unavailable",
  "rate_limited",
  "busy",
  "storage_full",
]);

/** Options of an EngramError. */
export interface EngramErrorOptions {
  cause?: unknown;
  /**
   * What a remote client is told instead of `message`, when `message` names local files (the
   * storage codes do, for the CLI and the operator log alone: docs/tools.md#errors).
   */
  remote?: string;
}

/** An error with a stable code; translated to a tool result, HTTP status or exit code at the edge. */
export class EngramError extends Error {
  /** The wire code. */
  readonly code: ErrorCode;
  /** The message for remote clients, when `message` is for local eyes only. */
  readonly remote?: string;

  constructor(code: ErrorCode, message: string, options?: EngramErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EngramError";
    this.code = code;
    if (options?.remote !== undefined) this.remote = options.remote;
  }

  /** Whether retrying the same call may succeed. */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}

/**
 * Wraps anything thrown into an EngramError, keeping the original as `cause`. The message is the
 * original's alone: every edge already prefixes the code (`internal: …`).
 */
export function toEngramError(err: unknown): EngramError {
  if (err instanceof EngramError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new EngramError("internal", message, { cause: err });
}

/** What an operator does about a corrupt database (docs/operations.md#corrupt-or-full-database). */
export const CORRUPT_DATABASE_FIX =
  "stop engram and restore a backup with: engram restore FILE --force (FILE: the last one engram backup wrote); without one, salvage what is left with the sqlite3 shell's .recover, or point --data at another directory; engram doctor checks the whole file";

/**
 * `storage_corrupt`: the database `file` is damaged, or not a database at all (`notDatabase`);
 * `detail` is what the database said. The file is named for the CLI and the operator log; remote
 * clients are told only to ask the operator.
 */
export function storageCorrupt(
  file: string | undefined,
  detail: string,
  options: { cause?: unknown; notDatabase?: boolean } = {},
): EngramError {
  const what = file === undefined ? "the database" : `database ${file}`;
  const is = options.notDatabase ? "is not a SQLite database or is corrupt" : "is corrupt";
  return new EngramError("storage_corrupt", `${what} ${is} (${detail}); ${CORRUPT_DATABASE_FIX}`, {
    cause: options.cause,
    remote:
      `the database is corrupt (${detail}); the operator must restore it from a backup (engram restore) or recover it (sqlite3 .recover): see the server log`,
  });
}

/**
 * `storage_full`: the disk under the data directory `dir` (or the database's size limit) is full.
 * Nothing of the failed write was kept; reads go on, and the same write succeeds once space is back.
 */
export function storageFull(
  dir: string | undefined,
  detail: string,
  options: { cause?: unknown } = {},
): EngramError {
  const where = dir === undefined ? "the database's disk" : `the disk holding ${dir}`;
  return new EngramError(
    "storage_full",
    `${where} is full (${detail}); nothing was written and reads still work: free space there (or move the data directory with --data) and try again`,
    {
      cause: options.cause,
      remote:
        `the database's disk is full (${detail}); nothing was written and reads still work: retry once the operator has freed space`,
    },
  );
}

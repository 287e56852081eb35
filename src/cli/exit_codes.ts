/** @module Process exit codes (docs/operations.md#exit-codes). */
import type { ErrorCode } from "../core/errors.ts";

/**
 * Exit codes: 0 ok, 1 error, 2 usage or invalid input, 75 busy/locked or disk full (EX_TEMPFAIL:
 * retry later).
 */
export const EXIT = { ok: 0, error: 1, usage: 2, busy: 75 } as const;

/** The exit code for an error code. */
export function exitCodeFor(code: ErrorCode): number {
  if (code === "invalid_argument") return EXIT.usage;
  if (code === "busy" || code === "storage_full") return EXIT.busy;
  return EXIT.error;
}

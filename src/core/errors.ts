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
  | "internal";

/** Codes a caller may retry without changing anything. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(["provider_unavailable", "rate_limited", "busy"]);

/** An error with a stable code; translated to a tool result, HTTP status or exit code at the edge. */
export class EngramError extends Error {
  /** The wire code. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EngramError";
    this.code = code;
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

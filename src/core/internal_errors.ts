/**
 * @module Internal errors as a remote client sees them: a reference to the server log, where the
 * detail (message and stack) is written under the same reference. A raw exception message can
 * name files, SQL or library internals that a client on another machine has no business reading.
 */
import { EngramError, toEngramError } from "./errors.ts";
import type { Logger } from "./logger.ts";

/** Bytes of randomness in a reference: enough to find one line in a day's log. */
const REF_BYTES = 5;

/** A short random reference for one logged failure, e.g. `3f9a0c12de`. */
function newErrorRef(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(REF_BYTES));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What a client is told about the failure logged under `ref` (the text after `internal: `). */
function concealedMessage(ref: string): string {
  return `unexpected error (ref ${ref}); see the server log`;
}

/**
 * `err` as an EngramError fit for a remote client. One with a `remote` message (it names local
 * files) is logged on `logger` and given that message; any other code passes unchanged (its message
 * was written for the client); an `internal` one is logged at error level on `logger` — which
 * must be the process's own log, never one that forwards to the client — and replaced by
 * {@link concealedMessage}, keeping the original as `cause`.
 */
export function concealInternal(
  err: unknown,
  options: { logger: Logger; what: string },
): EngramError {
  const e = toEngramError(err);
  if (e.remote !== undefined) {
    // The storage codes name local files: the operator's log gets them, the client the rest.
    options.logger.error(`${options.what} failed`, { code: e.code, error: e.message });
    return new EngramError(e.code, e.remote, { cause: err });
  }
  if (e.code !== "internal") return e;
  const ref = newErrorRef();
  const origin = e.cause instanceof Error ? e.cause : e;
  options.logger.error(`${options.what} failed`, {
    ref,
    error: e.message,
    stack: origin.stack ?? String(origin),
  });
  return new EngramError("internal", concealedMessage(ref), { cause: err });
}

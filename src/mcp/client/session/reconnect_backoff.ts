/**
 * @module When a lost upstream session is tried again: 1 s, doubling to at most 60 s, at most 8
 * attempts (docs/upstream.md#transports-and-sessions); after the last the server is marked down until
 * someone uses it again. The waiting is injectable so tests do not sleep for real.
 */

/** How reconnects are paced. */
export interface BackoffOptions {
  /** First delay; default 1000 ms. */
  initialMs?: number;
  /** Largest delay; default 60 000 ms. */
  maxMs?: number;
  /** Attempts before the server is marked down; default 8. */
  attempts?: number;
  /** Waits `ms` or until `signal` aborts (tests pass one that records and returns at once). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The delay before each attempt, in order. */
export function backoffDelays(options: BackoffOptions = {}): number[] {
  const initial = options.initialMs ?? 1000;
  const max = options.maxMs ?? 60_000;
  const attempts = options.attempts ?? 8;
  return Array.from({ length: attempts }, (_, i) => Math.min(initial * 2 ** i, max));
}

/** A timer-based wait that ends early (without error) when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

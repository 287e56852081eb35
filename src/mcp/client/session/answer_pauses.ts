/**
 * @module Request timeouts that stand still while a person answers
 * (docs/upstream.md#nested-requests): an upstream that elicits a form or a browser step in the
 * middle of a tool call waits for a human, who may take minutes, and the call must not be
 * cancelled under them. One per connection: while any elicitation of that connection is being
 * answered, every request timer of it is paused; each resumes with the time it had left. The
 * elicitation itself is bounded by `mcp.elicitation_timeout_ms`, so nothing waits forever.
 */

/** A request's timeout: fires once, unless cleared first. */
export interface RequestTimer {
  clear(): void;
}

/** The request timers of one connection, and the elicitations being answered on it. */
export class AnswerPauses {
  readonly #timers = new Set<PausableTimer>();
  #asking = 0;

  /** A timer of `ms` that calls `expire`, paused while an elicitation is being answered. */
  timeout(ms: number, expire: () => void): RequestTimer {
    const timer = new PausableTimer(ms, () => {
      this.#timers.delete(timer);
      expire();
    });
    this.#timers.add(timer);
    if (this.#asking === 0) timer.resume();
    return {
      clear: () => {
        timer.clear();
        this.#timers.delete(timer);
      },
    };
  }

  /** Runs `ask` (a person answering) with every timer paused until it settles. */
  async whileAsking<T>(ask: () => Promise<T>): Promise<T> {
    if (this.#asking++ === 0) { for (const t of this.#timers) t.pause(); }
    try {
      return await ask();
    } finally {
      if (--this.#asking === 0) { for (const t of this.#timers) t.resume(); }
    }
  }
}

/** A one-shot timer that can stand still and go on with the time it had left. */
class PausableTimer {
  #left: number;
  #since = 0;
  #handle: ReturnType<typeof setTimeout> | null = null;
  readonly #fire: () => void;

  constructor(ms: number, fire: () => void) {
    this.#left = ms;
    this.#fire = fire;
  }

  resume(): void {
    if (this.#handle !== null || this.#left < 0) return;
    this.#since = performance.now();
    this.#handle = setTimeout(() => {
      this.#handle = null;
      this.#left = -1;
      this.#fire();
    }, this.#left);
  }

  pause(): void {
    if (this.#handle === null) return;
    clearTimeout(this.#handle);
    this.#handle = null;
    this.#left = Math.max(0, this.#left - (performance.now() - this.#since));
  }

  clear(): void {
    if (this.#handle !== null) clearTimeout(this.#handle);
    this.#handle = null;
    this.#left = -1;
  }
}

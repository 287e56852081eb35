/**
 * @module One HTTP attempt's timer and abort wiring. The fetch gets the watchdog's own
 * controller, aborted by the caller's signal or by the timer, so either one stops the connection
 * itself, not just our wait on it.
 */

/** Marks an abort caused by the watchdog's timer rather than by the caller. */
export class Timeout extends Error {
  /** What was being waited for, e.g. "a response". */
  readonly waitingFor: string;

  constructor(waitingFor: string) {
    super(`timed out waiting for ${waitingFor}`);
    this.name = "Timeout";
    this.waitingFor = waitingFor;
  }
}

/** Times and cancels one request attempt and, after the headers, its body. */
export class Watchdog {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  readonly #callerSignal?: AbortSignal;
  readonly #onCallerAbort = () => this.#controller.abort(this.#callerSignal?.reason);
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number, signal?: AbortSignal) {
    this.#timeoutMs = timeoutMs;
    this.#callerSignal = signal;
    signal?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  /** The signal to hand to fetch. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** (Re)starts the timer for the next thing awaited. */
  arm(waitingFor: string): void {
    this.disarm();
    this.#timer = setTimeout(
      () => this.#controller.abort(new Timeout(waitingFor)),
      this.#timeoutMs,
    );
  }

  /** Stops the timer. */
  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Stops the timer and detaches from the caller's signal. */
  dispose(): void {
    this.disarm();
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
  }

  /**
   * Settles with `promise`, or rejects as soon as the attempt is aborted: with the caller's
   * reason when the caller aborted, else with a Timeout.
   */
  guard<T>(promise: Promise<T>): Promise<T> {
    // The loser of the race may reject later; nobody is left to observe it.
    promise.catch(() => {});
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(this.#reason());
    let onAbort = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.#reason());
      signal.addEventListener("abort", onAbort, { once: true });
    });
    return Promise.race([promise, aborted]).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  }

  /**
   * Wraps a response body so each read is timed (the timer restarts per chunk) and abortable.
   * Read failures go through `translate`; the watchdog is disposed when the body ends, fails or
   * is cancelled.
   */
  wrap(
    body: ReadableStream<Uint8Array> | null,
    translate: (err: unknown) => unknown,
  ): ReadableStream<Uint8Array> {
    this.disarm();
    if (!body) {
      this.dispose();
      return new ReadableStream({ start: (controller) => controller.close() });
    }
    const reader = body.getReader();
    const finish = () => {
      this.dispose();
      reader.cancel().catch(() => {});
    };
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        this.arm("the next chunk of the reply");
        try {
          const { done, value } = await this.guard(reader.read());
          this.disarm();
          if (done) {
            this.dispose();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (err) {
          finish();
          controller.error(translate(err));
        }
      },
      cancel: () => finish(),
    }, { highWaterMark: 0 });
  }

  #reason(): unknown {
    if (this.#callerSignal?.aborted) return this.#callerSignal.reason;
    return this.#controller.signal.reason;
  }
}

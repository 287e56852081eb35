/**
 * @module Work that a burst of events asks for over and over (an upstream flooding
 * `list_changed`): at most one run per key at a time, and one more after it when asked meanwhile,
 * so a burst costs two runs, however long, and the last event is never missed.
 */

/** Runs of `work` per key, coalesced. */
export class CoalescedRuns<K> {
  readonly #work: (key: K) => Promise<void>;
  readonly #running = new Map<K, { again: boolean; done: Promise<void> }>();

  /** Coalesces calls of `work`; it should not throw (a rejection ends that key's runs). */
  constructor(work: (key: K) => Promise<void>) {
    this.#work = work;
  }

  /** Asks for a run for `key`; settles when the run that covers this ask has finished. */
  ask(key: K): Promise<void> {
    const running = this.#running.get(key);
    if (running) {
      running.again = true;
      return running.done;
    }
    const state = { again: false, done: Promise.resolve() };
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await this.#work(key);
        } while (state.again);
      } finally {
        this.#running.delete(key);
      }
    })();
    this.#running.set(key, state);
    return state.done;
  }
}

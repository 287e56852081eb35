/**
 * @module Document changes as events: every write and forget of this process, plus — while someone
 * watches a brain — changes other processes sharing the database made, found by reading the
 * timeline: every `pollMs`, and at once when the store announces another process's commit
 * (`DocumentStore.watchChanges`, PostgreSQL's LISTEN/NOTIFY).
 */
import type { Logger } from "./logger.ts";
import { silentLogger } from "./logger.ts";
import type { DocumentStore } from "./ports/document_store.ts";

/** One document change. */
export interface DocumentChange {
  brainId: string;
  documentId: string;
  /** The path after the change. */
  path: string;
  /** The path before a move, when the change moved the document (known for this process only). */
  previousPath?: string;
  version: number;
  action: "created" | "updated" | "deleted";
}

/** A subscriber to document changes. */
export type ChangeListener = (change: DocumentChange) => void;

/** How often watched brains are polled for other processes' changes, by default. */
export const DEFAULT_CHANGE_POLL_MS = 1000;
/** A version row can carry a time from before its transaction committed: look back this far. */
const POLL_LOOKBACK_MS = 5000;
/** Timeline entries read per brain and poll. */
const POLL_LIMIT = 200;
/** Change keys remembered for de-duplication (this process's writes also show up in the timeline). */
const SEEN_LIMIT = 10_000;

/** Options of a change feed. */
export interface ChangeFeedOptions {
  /** Poll interval for watched brains in ms; 0 turns cross-process polling off. */
  pollMs?: number;
  logger?: Logger;
}

/** Per-process document change events, fed by the memory service and by a timeline poll. */
export class ChangeFeed {
  readonly #store: Pick<DocumentStore, "timeline" | "watchChanges">;
  readonly #pollMs: number;
  readonly #logger: Logger;
  readonly #listeners = new Set<ChangeListener>();
  /** Keys of changes already emitted, oldest first. */
  readonly #seen = new Set<string>();
  /** Watched brain → number of watchers, the time its last poll began, whether it is primed. */
  readonly #watched = new Map<string, { count: number; since: number; primed: boolean }>();
  #timer?: ReturnType<typeof setInterval>;
  #polling = false;
  /** Set when a poll was asked for while one ran: it runs once more. */
  #again = false;
  /** Stops hearing the store's announcements, while any brain is watched. */
  #unwatchStore?: () => void;

  constructor(
    store: Pick<DocumentStore, "timeline" | "watchChanges">,
    options: ChangeFeedOptions = {},
  ) {
    this.#store = store;
    this.#pollMs = options.pollMs ?? DEFAULT_CHANGE_POLL_MS;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Adds a listener; returns the function that removes it. */
  listen(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Announces a change once: a change already announced (by the poll or a write) is dropped. */
  emit(change: DocumentChange): void {
    if (!this.#markSeen(change)) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (err) {
        // A failing listener must not fail the write that caused the change.
        this.#logger.warn("change listener failed", { error: String(err) });
      }
    }
  }

  /**
   * Polls these brains for other processes' changes until the returned function is called. The
   * poll runs while at least one brain is watched, so an idle process never touches the timeline.
   */
  watch(brainIds: readonly string[]): () => void {
    if (this.#pollMs <= 0) return () => {};
    for (const id of brainIds) {
      const w = this.#watched.get(id);
      if (w) w.count++;
      else {
        const entry = { count: 1, since: Date.now(), primed: false };
        this.#watched.set(id, entry);
        void this.#prime(id, entry);
      }
    }
    if (this.#timer === undefined && this.#watched.size > 0) {
      const timer = setInterval(() => void this.#poll(), this.#pollMs);
      // Watching must never keep a finished process alive.
      Deno.unrefTimer(timer);
      this.#timer = timer;
      // Another process's commit, announced: read the timeline now rather than at the next tick.
      this.#unwatchStore = this.#store.watchChanges?.(() => void this.#poll());
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of brainIds) {
        const w = this.#watched.get(id);
        if (w && --w.count <= 0) this.#watched.delete(id);
      }
      if (this.#watched.size === 0) this.close();
    };
  }

  /** Stops polling. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unwatchStore?.();
    this.#unwatchStore = undefined;
  }

  /** Whether the change is new; remembers it. */
  #markSeen(change: DocumentChange): boolean {
    const key = `${change.documentId}:${change.version}:${change.action}`;
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.values().next().value!);
    return true;
  }

  /** Marks what the look-back window already holds as seen, so watching starts without old news. */
  async #prime(brainId: string, w: { since: number; primed: boolean }): Promise<void> {
    try {
      for (const change of await this.#read(brainId, w.since)) this.#markSeen(change);
    } catch (err) {
      this.#logger.warn("change poll failed", { error: String(err) });
    }
    w.primed = true;
  }

  /** Timeline entries from the look-back window before `since`, oldest first. */
  async #read(brainId: string, since: number): Promise<DocumentChange[]> {
    const entries = await this.#store.timeline(brainId, {
      limit: POLL_LIMIT,
      since: new Date(since - POLL_LOOKBACK_MS).toISOString(),
    });
    return entries.reverse().map((e) => ({
      brainId,
      documentId: e.document_id,
      path: e.path,
      version: e.version,
      action: e.action,
    }));
  }

  async #poll(): Promise<void> {
    // A slow database must not stack polls on top of each other; a poll asked for meanwhile (an
    // announced commit the running one may have read too early) runs once more after it.
    if (this.#polling) {
      this.#again = true;
      return;
    }
    this.#polling = true;
    try {
      do {
        this.#again = false;
        for (const [brainId, w] of [...this.#watched]) {
          if (!w.primed) continue;
          const started = Date.now();
          const changes = await this.#read(brainId, w.since);
          w.since = started;
          for (const c of changes) this.emit(c);
        }
      } while (this.#again);
    } catch (err) {
      this.#logger.warn("change poll failed", { error: String(err) });
    } finally {
      this.#polling = false;
    }
  }
}

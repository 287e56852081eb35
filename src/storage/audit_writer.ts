/**
 * @module Audit rows written after the reply, in batches, without waiting on other writers.
 *
 * Writing an audit row takes SQLite's write lock. Done inline, every call — a search included —
 * would wait behind another process's import for up to the busy timeout. Rows are queued and
 * flushed in batches shortly after the calls return, with a short busy timeout; when the lock is
 * held the rows stay queued and are tried again shortly. Closing the store flushes what is left,
 * waiting longer.
 */
import type { DatabaseSync } from "node:sqlite";
import type { AuditEntry } from "../core/types.ts";
import { BUSY_TIMEOUT_MS, type Prepares } from "./database.ts";

/**
 * Rows wait this long to be written together. One transaction per call would cost more than
 * many calls themselves (a commit, and every later read re-reading the changed WAL index);
 * under load a tenth of a second gathers hundreds of rows into one.
 */
const FLUSH_DELAY_MS = 100;
/** A queue this long is written at once instead. */
const FLUSH_ROWS = 512;
/** How long a background flush waits for the write lock. */
const FLUSH_BUSY_MS = 25;
/** Pause before trying again when the lock was held. */
const RETRY_MS = 200;
/** Rows kept at most while the lock stays taken (oldest dropped beyond, with a warning count). */
const MAX_QUEUED = 10_000;

/** Queues audit rows and writes them in the background. */
export class AuditWriter {
  #db: DatabaseSync;
  #prepare: Prepares;
  #queue: (AuditEntry & { at: string })[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Rows dropped because the queue overflowed. */
  dropped = 0;

  constructor(db: DatabaseSync, prepare: Prepares) {
    this.#db = db;
    this.#prepare = prepare;
  }

  /** Queues a row; it is written within FLUSH_DELAY_MS, with the rows queued meanwhile. */
  add(entry: AuditEntry): void {
    this.#queue.push({ ...entry, at: new Date().toISOString() });
    if (this.#queue.length > MAX_QUEUED) {
      this.#queue.shift();
      this.dropped++;
    }
    this.#schedule(this.#queue.length >= FLUSH_ROWS ? 0 : FLUSH_DELAY_MS);
  }

  /** Writes everything queued, waiting as long as any writer would; used on close. */
  flushNow(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flush(BUSY_TIMEOUT_MS);
  }

  #schedule(delay: number): void {
    if (this.#timer !== undefined) {
      if (delay > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#flush(FLUSH_BUSY_MS)) this.#schedule(RETRY_MS);
    }, delay);
  }

  /** True when the queue is empty afterwards. */
  #flush(busyMs: number): boolean {
    if (this.#queue.length === 0 || !this.#db.isOpen) return true;
    // Inside a caller's transaction (a bulk batch) the rows wait for the next turn.
    if (this.#db.isTransaction) return false;
    const rows = this.#queue.splice(0);
    this.#db.exec(`PRAGMA busy_timeout = ${busyMs}`);
    try {
      this.#db.exec("BEGIN IMMEDIATE");
      const insert = this.#prepare.prepare(
        `INSERT INTO audit (at, client_id, transport, session_id, tier, kind, name, brain_id, args_digest, outcome, error_code, latency_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const e of rows) {
        insert.run(
          e.at,
          e.client_id,
          e.transport,
          e.session_id,
          e.tier,
          e.kind,
          e.name,
          e.brain_id,
          e.args_digest,
          e.outcome,
          e.error_code,
          e.latency_ms,
        );
      }
      this.#db.exec("COMMIT");
      return true;
    } catch {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      this.#queue.unshift(...rows);
      return false;
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }
}

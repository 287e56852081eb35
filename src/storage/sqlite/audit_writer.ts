/**
 * @module Audit rows and upstream traces written after the reply, in batches, without waiting on
 * other writers.
 *
 * Writing an audit row takes SQLite's write lock. Done inline, every call — a search included —
 * would wait behind another process's import for up to the busy timeout. Rows are queued and
 * flushed in batches shortly after the calls return, with a short busy timeout; when the lock is
 * held the rows stay queued and are tried again shortly. Closing the store flushes what is left,
 * waiting longer.
 *
 * Any other failure (a constraint, a full disk, a read-only file, a missing table) would fail again
 * however often it is retried, so those rows are dropped at once: logged at error level with their
 * count and the reason, and counted in `audit_drops` for `engram mcp report`.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { Logger } from "../../core/logger.ts";
import { silentLogger } from "../../core/logger.ts";
import type { UpstreamTrace } from "../../core/ports/trace_log.ts";
import type { AuditEntry } from "../../core/types.ts";
import { BUSY_TIMEOUT_MS, isBusyError, type Prepares, transaction } from "./database.ts";
import { type AuditDrop, recordAuditDrops } from "./audit_drops.ts";

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
/** Rows kept at most while the lock stays taken (oldest dropped beyond, and counted). */
const MAX_QUEUED = 10_000;
/** The reason recorded for rows pushed out of a full queue. */
export const QUEUE_OVERFLOW = `queue overflow: more than ${MAX_QUEUED} rows waited for the lock`;
/** Reasons are SQLite messages; a trigger's RAISE text could be long. */
const MAX_REASON = 200;

/** The timer functions the writer schedules flushes with (tests drive flushes by hand). */
export interface AuditTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options of AuditWriter. */
export interface AuditWriterOptions {
  /** Where dropped rows are reported (error level). */
  logger?: Logger;
  /** Defaults to the global timers. */
  timers?: AuditTimers;
  /** The clock rows are stamped with. */
  now?: () => Date;
}

/** The insert of each kind of row the writer carries. */
const INSERTS = {
  audit:
    `INSERT INTO audit (at, client_id, transport, session_id, tier, kind, name, brain_id, args_digest, outcome, error_code, latency_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  trace:
    `INSERT INTO upstream_traces (at, server, capability, kind, latency_ms, outcome, error_code, bytes_in, bytes_out, caller, transport)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
} as const;

/** A queued row: which table, and its values in the insert's order. */
interface QueuedRow {
  table: keyof typeof INSERTS;
  values: SQLInputValue[];
}

/** Another connection holds the lock, or a table of it: worth trying again. */
function isLockedOut(err: unknown): boolean {
  return isBusyError(err) || /SQLITE_LOCKED|database table is locked/i.test(String(err));
}

/** Queues audit rows (and upstream traces) and writes them in the background. */
export class AuditWriter {
  #db: DatabaseSync;
  #prepare: Prepares;
  #logger: Logger;
  #timers: AuditTimers;
  #now: () => Date;
  #queue: QueuedRow[] = [];
  #timer: unknown;
  /** Drops not yet recorded in `audit_drops` (recorded with the next write that gets the lock). */
  #drops: AuditDrop[] = [];
  /** Set once recording drops failed for a reason other than the lock, so it is logged once. */
  #dropLedgerFailed = false;

  constructor(db: DatabaseSync, prepare: Prepares, options: AuditWriterOptions = {}) {
    this.#db = db;
    this.#prepare = prepare;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? (() => new Date());
    this.#timers = options.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
  }

  /** Queues an audit row; it is written within FLUSH_DELAY_MS, with the rows queued meanwhile. */
  add(e: AuditEntry): void {
    this.#enqueue({
      table: "audit",
      values: [
        this.#now().toISOString(),
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
      ],
    });
  }

  /** Queues an upstream trace, written with the audit rows (same table space, same rules). */
  addTrace(t: UpstreamTrace): void {
    this.#enqueue({
      table: "trace",
      values: [
        t.at,
        t.server,
        t.capability,
        t.kind,
        t.latency_ms,
        t.outcome,
        t.error_code,
        t.bytes_in,
        t.bytes_out,
        t.caller,
        t.transport,
      ],
    });
  }

  #enqueue(row: QueuedRow): void {
    this.#queue.push(row);
    if (this.#queue.length > MAX_QUEUED) {
      this.#queue.shift();
      this.#dropped(1, QUEUE_OVERFLOW);
    }
    this.#schedule(this.#queue.length >= FLUSH_ROWS ? 0 : FLUSH_DELAY_MS);
  }

  /** Writes everything queued, waiting as long as any writer would; used on close. */
  flushNow(): void {
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#flush(BUSY_TIMEOUT_MS)) return;
    const lost = this.#queue.length + this.#drops.reduce((n, d) => n + d.rows, 0);
    this.#logger.error(
      `${lost} audit row(s) lost on close: the database stayed locked by another process for ${BUSY_TIMEOUT_MS} ms`,
      { rows: lost },
    );
  }

  #schedule(delay: number): void {
    if (this.#timer !== undefined) {
      if (delay > 0) return;
      this.#timers.clearTimeout(this.#timer);
    }
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      if (!this.#flush(FLUSH_BUSY_MS)) this.#schedule(RETRY_MS);
    }, delay);
  }

  /** True when nothing is left worth retrying (the lock was free, or the failure was not the lock). */
  #flush(busyMs: number): boolean {
    if (!this.#db.isOpen) return true;
    if (this.#queue.length === 0 && this.#drops.length === 0) return true;
    // Inside a caller's transaction (a bulk batch) the rows wait for the next turn.
    if (this.#db.isTransaction) return false;
    this.#db.exec(`PRAGMA busy_timeout = ${busyMs}`);
    try {
      return this.#writeRows() && this.#recordDrops();
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /**
   * Writes the queue in one transaction. A row SQLite refuses (a constraint) is dropped alone and
   * the others are kept; a failure of the whole transaction drops the whole batch.
   */
  #writeRows(): boolean {
    if (this.#queue.length === 0) return true;
    const rows = this.#queue.splice(0);
    const refused = new Map<string, number>();
    try {
      this.#db.exec("BEGIN IMMEDIATE");
      for (const row of rows) {
        try {
          this.#prepare.prepare(INSERTS[row.table]).run(...row.values);
        } catch (err) {
          // Without a transaction SQLite rolled it all back (a full disk, an I/O error).
          if (isLockedOut(err) || !this.#db.isTransaction) throw err;
          const reason = reasonOf(err);
          refused.set(reason, (refused.get(reason) ?? 0) + 1);
        }
      }
      this.#db.exec("COMMIT");
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      if (isLockedOut(err)) {
        this.#queue.unshift(...rows);
        return false;
      }
      this.#dropped(rows.length, reasonOf(err));
      return true;
    }
    for (const [reason, n] of refused) this.#dropped(n, reason);
    return true;
  }

  /** Records pending drops; false only when the lock was held (try again). */
  #recordDrops(): boolean {
    if (this.#drops.length === 0) return true;
    const drops = this.#drops.splice(0);
    try {
      transaction(this.#db, () => recordAuditDrops(this.#prepare, drops));
      this.#dropLedgerFailed = false;
      return true;
    } catch (err) {
      this.#drops.unshift(...drops);
      if (isLockedOut(err)) return false;
      // Kept in memory and tried with the next write; retrying on a timer would only spin.
      if (!this.#dropLedgerFailed) {
        this.#dropLedgerFailed = true;
        this.#logger.error(
          `could not record dropped audit rows for engram mcp report (${reasonOf(err)})`,
          { reason: reasonOf(err) },
        );
      }
      return true;
    }
  }

  /** Counts `rows` dropped for `reason`, and says so in the log. */
  #dropped(rows: number, reason: string): void {
    const last = this.#drops[this.#drops.length - 1];
    if (reason === QUEUE_OVERFLOW && last?.reason === QUEUE_OVERFLOW) {
      // One log line per overflow episode, not one per row.
      last.rows += rows;
      return;
    }
    this.#drops.push({ at: this.#now().toISOString(), rows, reason });
    this.#logger.error(
      `${rows} audit row(s) dropped (${reason}); engram mcp report counts them`,
      { rows, reason },
    );
  }
}

function reasonOf(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.length > MAX_REASON ? `${msg.slice(0, MAX_REASON - 1)}…` : msg;
}

/**
 * @module Audit rows and upstream traces written after the reply, in batches: one multi-row
 * INSERT per table every tenth of a second under load, instead of a commit (and its WAL flush) per
 * call. Rows that cannot be written are dropped, logged with their count and the reason, and
 * counted in `audit_drops` when that table can still be written.
 *
 * Batches go straight to the pool, never through the caller's unit of work: a row audited inside
 * a unit that rolls back is still recorded, as the port requires.
 */
import type postgres from "postgres";
import type { Logger } from "../../core/logger.ts";
import { silentLogger } from "../../core/logger.ts";
import type { UpstreamTrace } from "../../core/ports/trace_log.ts";
import type { AuditEntry } from "../../core/types.ts";

/** Rows wait this long to be written together. */
const FLUSH_DELAY_MS = 100;
/** A queue this long is written at once. */
const FLUSH_ROWS = 512;
/** Reasons are server messages; a trigger's text could be long. */
const MAX_REASON = 200;

/** An audit row as inserted. */
type AuditRow = AuditEntry & { at: string };
/** A trace row as inserted. */
type TraceRow = UpstreamTrace;

/** Queues audit rows and traces and writes them in the background. */
export class PostgresAuditWriter {
  readonly #sql: postgres.Sql;
  readonly #logger: Logger;
  readonly #now: () => Date;
  #audit: AuditRow[] = [];
  #traces: TraceRow[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The flush under way; the next waits for it, so batches are written in order. */
  #flushing: Promise<void> = Promise.resolve();

  constructor(sql: postgres.Sql, options: { logger?: Logger; now: () => Date }) {
    this.#sql = sql;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now;
  }

  /** Queues an audit row, stamped now. */
  add(entry: AuditEntry): void {
    this.#audit.push({ ...entry, at: this.#now().toISOString() });
    this.#schedule();
  }

  /** Queues an upstream trace. */
  addTrace(entry: UpstreamTrace): void {
    this.#traces.push(entry);
    this.#schedule();
  }

  /** Writes every queued row; resolves once they are written (or dropped). */
  flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const audit = this.#audit;
    const traces = this.#traces;
    this.#audit = [];
    this.#traces = [];
    this.#flushing = this.#flushing.then(() => this.#write(audit, traces));
    return this.#flushing;
  }

  #schedule(): void {
    if (this.#audit.length + this.#traces.length >= FLUSH_ROWS) {
      void this.flush();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, FLUSH_DELAY_MS);
  }

  async #write(audit: AuditRow[], traces: TraceRow[]): Promise<void> {
    if (audit.length > 0) {
      await this.#insert("audit", audit.length, () =>
        this.#sql`INSERT INTO audit ${
          this.#sql(
            audit,
            "at",
            "client_id",
            "transport",
            "session_id",
            "tier",
            "kind",
            "name",
            "brain_id",
            "args_digest",
            "outcome",
            "error_code",
            "latency_ms",
          )
        }`);
    }
    if (traces.length > 0) {
      await this.#insert(
        "trace",
        traces.length,
        () =>
          this.#sql`INSERT INTO upstream_traces ${
            this.#sql(
              traces,
              "at",
              "server",
              "capability",
              "kind",
              "latency_ms",
              "outcome",
              "error_code",
              "bytes_in",
              "bytes_out",
              "caller",
              "transport",
            )
          }`,
      );
    }
  }

  /** Runs one batch's insert; a failure drops the batch, logged and counted. */
  async #insert(what: string, rows: number, insert: () => Promise<unknown>): Promise<void> {
    try {
      await insert();
    } catch (err) {
      const reason = String(err instanceof Error ? err.message : err).slice(0, MAX_REASON);
      this.#logger.error(`${rows} ${what} row(s) could not be written and were dropped`, {
        reason,
      });
      try {
        await this.#sql`INSERT INTO audit_drops (at, rows, reason)
                        VALUES (${this.#now().toISOString()}, ${rows}, ${reason})`;
      } catch {
        // The database itself is out of reach; the log line above is all that can be done.
      }
    }
  }
}

/**
 * @module The audit and trace ports over SQLite: rows are queued and written in batches by the
 * AuditWriter (never inside another caller's unit of work), and read back a page at a time.
 */
import type { AuditDrops, AuditSample } from "../core/audit_report.ts";
import type { AuditReader, AuditSink } from "../core/ports/audit_log.ts";
import type { TraceReader, TraceSink, UpstreamTrace } from "../core/ports/trace_log.ts";
import type { Logger } from "../core/logger.ts";
import type { AuditEntry } from "../core/types.ts";
import { auditDrops } from "./audit_drops.ts";
import { auditPage } from "./audit_samples.ts";
import { AuditWriter } from "./audit_writer.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

/** Traces read per page. */
const TRACE_PAGE = 2000;

/** The audit log and upstream traces over one connection. */
export class SqliteAuditLog implements AuditSink, AuditReader, TraceSink, TraceReader {
  readonly #conn: SqliteConnection;
  readonly #writer: AuditWriter;

  /** `options.logger` hears about audit rows that could not be written. */
  constructor(conn: SqliteConnection, options: { logger?: Logger } = {}) {
    this.#conn = conn;
    this.#writer = new AuditWriter(conn.db, conn.cached, { logger: options.logger, now: conn.now });
  }

  audit(entry: AuditEntry): Promise<void> {
    this.#writer.add(entry);
    return Promise.resolve();
  }

  async *auditSamples(since: string): AsyncIterable<AuditSample> {
    let after = 0;
    for (;;) {
      const page = await this.#conn.read(() => auditPage(this.#conn.cached, since, after));
      yield* page.samples;
      if (page.lastRowid === null) return;
      after = page.lastRowid;
    }
  }

  auditDrops(since: string): Promise<AuditDrops> {
    return this.#conn.read(() => auditDrops(this.#conn.cached, since));
  }

  trace(entry: UpstreamTrace): Promise<void> {
    this.#writer.addTrace(entry);
    return Promise.resolve();
  }

  async *traces(options: { since: string; server?: string }): AsyncIterable<UpstreamTrace> {
    let after = 0;
    for (;;) {
      const rows = await this.#conn.read(() =>
        this.#conn.prepare(
          `SELECT rowid, at, server, capability, kind, latency_ms, outcome, error_code, bytes_in,
             bytes_out, caller, transport FROM upstream_traces
            WHERE at >= ? AND rowid > ? AND (? IS NULL OR server = ? COLLATE NOCASE)
            ORDER BY rowid LIMIT ${TRACE_PAGE}`,
        ).all(
          options.since,
          after,
          options.server ?? null,
          options.server ?? null,
        ) as unknown as (UpstreamTrace & { rowid: number })[]
      );
      for (const { rowid: _rowid, ...trace } of rows) yield trace;
      if (rows.length < TRACE_PAGE) return;
      after = rows[rows.length - 1].rowid;
    }
  }

  pruneTraces(before: string): Promise<number> {
    return this.#conn.write(() =>
      Number(this.#conn.prepare("DELETE FROM upstream_traces WHERE at < ?").run(before).changes)
    );
  }

  /** Writes the queued rows now (on close). */
  flush(): void {
    this.#writer.flushNow();
  }
}

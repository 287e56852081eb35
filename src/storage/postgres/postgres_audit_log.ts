/**
 * @module The audit and trace ports over PostgreSQL: rows are queued and written in batches by the
 * PostgresAuditWriter, and read back a page at a time. Operator actions are rows of kind
 * `operator` in the same table, written at once.
 */
import type { AuditDrops, AuditSample } from "../../core/audit/audit_report.ts";
import type { OperatorAction, OperatorActionRecord } from "../../core/audit/operator_action.ts";
import { sha256Hex } from "../../core/hash.ts";
import type { Logger } from "../../core/logger.ts";
import type { AuditReader, AuditSink } from "../../core/ports/audit_log.ts";
import type { TraceReader, TraceSink, UpstreamTrace } from "../../core/ports/trace_log.ts";
import type { AuditEntry } from "../../core/types.ts";
import { PostgresAuditWriter } from "./audit_writer.ts";
import type { PostgresConnection } from "./connection.ts";
import { type OperatorRow, toAuditDrops, toOperatorAction } from "../shared/audit_rows.ts";

/** The audit kind of operator actions. */
const OPERATOR_KIND = "operator";

/** Rows read per page: a long audit log or trace log is never loaded at once. */
const PAGE_ROWS = 2000;

/** The audit log and upstream traces over one pool. */
export class PostgresAuditLog implements AuditSink, AuditReader, TraceSink, TraceReader {
  readonly #conn: PostgresConnection;
  readonly #writer: PostgresAuditWriter;

  /** `options.logger` hears about audit rows that could not be written. */
  constructor(conn: PostgresConnection, options: { logger?: Logger } = {}) {
    this.#conn = conn;
    this.#writer = new PostgresAuditWriter(conn.pool, { logger: options.logger, now: conn.now });
  }

  audit(entry: AuditEntry): Promise<void> {
    this.#writer.add(entry);
    return Promise.resolve();
  }

  operatorAction(action: OperatorAction): Promise<void> {
    const detail = JSON.stringify({ server: action.server, changes: action.changes });
    return this.#conn.write(async (sql) => {
      await sql`
        INSERT INTO audit (at, client_id, transport, session_id, tier, kind, name, brain_id,
          args_digest, outcome, error_code, latency_ms, detail)
        VALUES (${this.#conn.now().toISOString()}, ${action.user}, 'cli', NULL, 'admin',
          ${OPERATOR_KIND}, ${action.command}, NULL, ${sha256Hex(detail).slice(0, 16)}, 'ok',
          NULL, 0, ${detail})`;
    });
  }

  auditSamples(since: string): AsyncIterable<AuditSample> {
    // Operator actions are not calls: they have their own reader and their own part of the report.
    return this.#pages<AuditSample>(
      `SELECT seq, client_id, transport, kind, name, outcome, error_code, latency_ms
         FROM audit WHERE at >= $1 AND kind <> '${OPERATOR_KIND}'`,
      [since],
    );
  }

  async *operatorActions(since: string): AsyncIterable<OperatorActionRecord> {
    const rows = this.#pages<
      OperatorRow
    >(
      `SELECT seq, at, client_id, name, detail FROM audit
        WHERE at >= $1 AND kind = '${OPERATOR_KIND}'`,
      [since],
    );
    for await (const row of rows) yield toOperatorAction(row);
  }

  auditDrops(since: string): Promise<AuditDrops> {
    return this.#conn.read(async (sql) => {
      const rows = await sql<{ reason: string; rows: number }[]>`
        SELECT reason, sum(rows)::bigint AS rows FROM audit_drops WHERE at >= ${since}
         GROUP BY reason ORDER BY reason COLLATE "C"`;
      return toAuditDrops(rows);
    });
  }

  trace(entry: UpstreamTrace): Promise<void> {
    this.#writer.addTrace(entry);
    return Promise.resolve();
  }

  traces(options: { since: string; server?: string }): AsyncIterable<UpstreamTrace> {
    return this.#pages<UpstreamTrace>(
      `SELECT seq, at, server, capability, kind, latency_ms, outcome, error_code, bytes_in,
         bytes_out, caller, transport FROM upstream_traces
        WHERE at >= $1 AND ($2::text IS NULL OR engram_fold(server) = engram_fold($2))`,
      [options.since, options.server ?? null],
    );
  }

  pruneTraces(before: string): Promise<number> {
    return this.#conn.write(async (sql) =>
      (await sql`DELETE FROM upstream_traces WHERE at < ${before}`).count
    );
  }

  /** Writes the queued rows; resolves once they are written (on close). */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /**
   * The rows `select` (a SELECT of `seq` and the wanted columns, ending in a WHERE clause with
   * `params`) finds, oldest first, read a page at a time: keyset paging on seq.
   */
  async *#pages<T>(select: string, params: (string | null)[]): AsyncIterable<T> {
    let after = 0;
    const next = `$${params.length + 1}`;
    for (;;) {
      const rows = await this.#conn.read((sql) =>
        sql.unsafe(`${select} AND seq > ${next} ORDER BY seq LIMIT ${PAGE_ROWS}`, [
          ...params,
          after,
        ])
      );
      for (const { seq: _seq, ...row } of rows) yield row as unknown as T;
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1].seq as number;
    }
  }
}

/**
 * @module The audit and trace ports over SQLite: rows are queued and written in batches by the
 * AuditWriter (never inside another caller's unit of work), and read back a page at a time.
 * Operator actions are rows of kind `operator` in the same table (migration 13 added their
 * `detail`), written at once.
 */
import type { SQLInputValue } from "node:sqlite";
import type { AuditDrops, AuditSample } from "../../core/audit/audit_report.ts";
import { sha256Hex } from "../../core/hash.ts";
import type { OperatorAction, OperatorActionRecord } from "../../core/audit/operator_action.ts";
import type { AuditReader, AuditSink } from "../../core/ports/audit_log.ts";
import type { TraceReader, TraceSink, UpstreamTrace } from "../../core/ports/trace_log.ts";
import type { Logger } from "../../core/logger.ts";
import type { AuditEntry } from "../../core/types.ts";
import { auditDrops } from "./audit_drops.ts";
import { AuditWriter } from "./audit_writer.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { type OperatorRow, toOperatorAction } from "../shared/audit_rows.ts";

/** The audit kind of operator actions. */
const OPERATOR_KIND = "operator";

/** Rows read per page: a long audit log or trace log is never loaded at once. */
const PAGE_ROWS = 2000;

/** The audit log and upstream traces over one connection. */
export class SqliteAuditLog implements AuditSink, AuditReader, TraceSink, TraceReader {
  readonly #conn: SqliteConnection;
  readonly #writer: AuditWriter;

  /** `options.logger` hears about audit rows that could not be written. */
  constructor(conn: SqliteConnection, options: { logger?: Logger } = {}) {
    this.#conn = conn;
    this.#writer = new AuditWriter(conn.db, conn, { logger: options.logger, now: conn.now });
  }

  audit(entry: AuditEntry): Promise<void> {
    this.#writer.add(entry);
    return Promise.resolve();
  }

  operatorAction(action: OperatorAction): Promise<void> {
    const detail = JSON.stringify({ server: action.server, changes: action.changes });
    return this.#conn.write(() => {
      this.#conn.prepare(
        `INSERT INTO audit (at, client_id, transport, session_id, tier, kind, name, brain_id,
           args_digest, outcome, error_code, latency_ms, detail)
         VALUES (?, ?, 'cli', NULL, 'admin', '${OPERATOR_KIND}', ?, NULL, ?, 'ok', NULL, 0, ?)`,
      ).run(
        this.#conn.now().toISOString(),
        action.user,
        action.command,
        sha256Hex(detail).slice(0, 16),
        detail,
      );
    });
  }

  auditSamples(since: string): AsyncIterable<AuditSample> {
    // Operator actions are not calls: they have their own reader and their own part of the report.
    return pages<AuditSample>(
      this.#conn,
      `SELECT rowid, client_id, transport, kind, name, outcome, error_code, latency_ms
         FROM audit WHERE at >= ? AND kind != '${OPERATOR_KIND}'`,
      [since],
    );
  }

  async *operatorActions(since: string): AsyncIterable<OperatorActionRecord> {
    const rows = pages<OperatorRow>(
      this.#conn,
      `SELECT rowid, at, client_id, name, detail FROM audit
        WHERE at >= ? AND kind = '${OPERATOR_KIND}'`,
      [since],
    );
    for await (const row of rows) yield toOperatorAction(row);
  }

  auditDrops(since: string): Promise<AuditDrops> {
    return this.#conn.read(() => auditDrops(this.#conn, since));
  }

  trace(entry: UpstreamTrace): Promise<void> {
    this.#writer.addTrace(entry);
    return Promise.resolve();
  }

  traces(options: { since: string; server?: string }): AsyncIterable<UpstreamTrace> {
    const server = options.server ?? null;
    return pages<UpstreamTrace>(
      this.#conn,
      `SELECT rowid, at, server, capability, kind, latency_ms, outcome, error_code, bytes_in,
         bytes_out, caller, transport FROM upstream_traces
        WHERE at >= ? AND (? IS NULL OR server = ? COLLATE NOCASE)`,
      [options.since, server, server],
    );
  }

  async pruneTraces(before: string): Promise<number> {
    // A read first: every start with upstreams configured prunes, and taking the write lock only
    // to find nothing expired would make a start wait behind another process's import.
    const expired = await this.#conn.read(() =>
      this.#conn.prepare("SELECT 1 FROM upstream_traces WHERE at < ? LIMIT 1").get(before)
    );
    if (!expired) return 0;
    return await this.#conn.write(() =>
      Number(this.#conn.prepare("DELETE FROM upstream_traces WHERE at < ?").run(before).changes)
    );
  }

  /** Writes the queued rows now (on close). */
  flush(): void {
    this.#writer.flushNow();
  }
}

/**
 * The rows `select` (a SELECT of `rowid` and the wanted columns, ending in a WHERE clause with
 * `params`) finds, oldest first, read a page at a time: keyset paging on rowid, so each page is a
 * short read and other callers' work runs between pages.
 */
async function* pages<T>(
  conn: SqliteConnection,
  select: string,
  params: SQLInputValue[],
): AsyncIterable<T> {
  let after = 0;
  for (;;) {
    const rows = await conn.read(() =>
      conn.prepare(`${select} AND rowid > ? ORDER BY rowid LIMIT ${PAGE_ROWS}`).all(
        ...params,
        after,
      )
    );
    for (const { rowid: _rowid, ...row } of rows) yield row as unknown as T;
    if (rows.length < PAGE_ROWS) return;
    after = rows[rows.length - 1].rowid as number;
  }
}

/** @module Reading audit rows for `engram mcp report`, oldest first, a page at a time. */
import type { AuditSample } from "../core/audit_report.ts";
import type { Prepares } from "./database.ts";

/** Rows read per page: a long audit log is never loaded at once. */
const PAGE_ROWS = 2000;

/** One page of audit rows at or after `since` (ISO time) with a rowid above `afterRowid`. */
export function auditPage(
  db: Prepares,
  since: string,
  afterRowid: number,
): { samples: AuditSample[]; lastRowid: number | null } {
  const rows = db.prepare(
    `SELECT rowid, client_id, transport, kind, name, outcome, error_code, latency_ms
       FROM audit WHERE at >= ? AND rowid > ? ORDER BY rowid LIMIT ${PAGE_ROWS}`,
  ).all(since, afterRowid) as unknown as (AuditSample & { rowid: number })[];
  const samples = rows.map(({ rowid: _rowid, ...sample }) => sample);
  return { samples, lastRowid: rows.length === PAGE_ROWS ? rows[rows.length - 1].rowid : null };
}

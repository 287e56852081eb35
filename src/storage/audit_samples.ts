/** @module Reading audit rows for `engram mcp report`, oldest first, without loading them all at once. */
import type { DatabaseSync } from "node:sqlite";
import type { AuditSample } from "../core/audit_report.ts";

/** Audit rows at or after `since` (ISO time), streamed from the database. */
export function* auditSamples(db: DatabaseSync, since: string): Generator<AuditSample> {
  const rows = db.prepare(
    `SELECT client_id, transport, kind, name, outcome, error_code, latency_ms
       FROM audit WHERE at >= ? ORDER BY rowid`,
  ).iterate(since);
  for (const r of rows) yield r as unknown as AuditSample;
}

/**
 * @module The ledger of audit rows engram could not write: one row per drop (how many, why), so a
 * separate process — `engram mcp report` — can say that the audit log has gaps.
 */
import type { AuditDrops } from "../../core/audit/audit_report.ts";
import { toAuditDrops } from "../shared/audit_rows.ts";
import type { Prepares } from "./database.ts";

/** One drop: `rows` audit rows lost at `at` for `reason`. */
export interface AuditDrop {
  at: string;
  rows: number;
  reason: string;
}

/** Records drops; the caller holds the write transaction. */
export function recordAuditDrops(db: Prepares, drops: readonly AuditDrop[]): void {
  const insert = db.prepare("INSERT INTO audit_drops (at, rows, reason) VALUES (?, ?, ?)");
  for (const d of drops) insert.run(d.at, d.rows, d.reason);
}

/** Rows dropped at or after `since` (ISO time), in total and by reason. */
export function auditDrops(db: Prepares, since: string): AuditDrops {
  const rows = db.prepare(
    "SELECT reason, SUM(rows) AS rows FROM audit_drops WHERE at >= ? GROUP BY reason ORDER BY reason",
  ).all(since) as { reason: string; rows: number }[];
  return toAuditDrops(rows);
}

/**
 * @module Row → record mapping for the `audit` and `audit_drops` tables, shared by the SQLite and
 * PostgreSQL adapters: the columns and their meaning are the same on both; only the SQL differs.
 */
import type { AuditDrops } from "../../core/audit/audit_report.ts";
import type { OperatorActionRecord } from "../../core/audit/operator_action.ts";

/** The `audit` columns an operator action is read from. */
export interface OperatorRow {
  at: string;
  client_id: string;
  name: string;
  detail: string | null;
}

/** An operator-action audit row as a record (server and changes parsed from `detail`). */
export function toOperatorAction(row: OperatorRow): OperatorActionRecord {
  const detail = JSON.parse(row.detail ?? "{}") as { server?: string; changes?: string[] };
  return {
    at: row.at,
    user: row.client_id,
    command: row.name,
    server: detail.server ?? null,
    changes: detail.changes ?? [],
  };
}

/** Dropped-row counts by reason, summed over the reasons. */
export function toAuditDrops(rows: readonly { reason: string; rows: number }[]): AuditDrops {
  const reasons: Record<string, number> = {};
  let total = 0;
  for (const r of rows) {
    reasons[r.reason] = r.rows;
    total += r.rows;
  }
  return { rows: total, reasons };
}

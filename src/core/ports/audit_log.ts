/**
 * @module The audit-log ports: a sink every call writes to, and the reader reports come from. Beside
 * the calls agents make, the log holds operator actions (kind `operator`): what a person changed
 * with an `engram mcp` command, who (the OS user) and when (docs/operations.md#audit-log-and-health).
 */
import type { AuditDrops, AuditSample } from "../audit/audit_report.ts";
import type { OperatorAction, OperatorActionRecord } from "../audit/operator_action.ts";
import type { AuditEntry } from "../types.ts";

/** Where audit rows go. Writing may be deferred and batched; it never fails the audited call. */
export interface AuditSink {
  /** Records one audit row. */
  audit(entry: AuditEntry): Promise<void>;
  /**
   * Records an operator action at once (not deferred: the command that made the change waits for
   * its row, and fails when it cannot be written).
   */
  operatorAction(action: OperatorAction): Promise<void>;
}

/** Reading the audit log back for reports. */
export interface AuditReader {
  /** Audited calls since `since` (ISO time), oldest first, read as they are consumed. */
  auditSamples(since: string): AsyncIterable<AuditSample>;
  /** Audit rows that could not be written since `since`, in total and by reason. */
  auditDrops(since: string): Promise<AuditDrops>;
  /** Operator actions since `since` (ISO time), oldest first. */
  operatorActions(since: string): AsyncIterable<OperatorActionRecord>;
}

/** @module The audit-log ports: a sink every call writes to, and the reader reports come from. */
import type { AuditDrops, AuditSample } from "../audit/audit_report.ts";
import type { AuditEntry } from "../types.ts";

/** Where audit rows go. Writing may be deferred and batched; it never fails the audited call. */
export interface AuditSink {
  /** Records one audit row. */
  audit(entry: AuditEntry): Promise<void>;
}

/** Reading the audit log back for reports. */
export interface AuditReader {
  /** Audited calls since `since` (ISO time), oldest first, read as they are consumed. */
  auditSamples(since: string): AsyncIterable<AuditSample>;
  /** Audit rows that could not be written since `since`, in total and by reason. */
  auditDrops(since: string): Promise<AuditDrops>;
}

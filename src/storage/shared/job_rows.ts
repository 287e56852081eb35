/**
 * @module Row → record mapping for the `jobs` table, shared by the SQLite and PostgreSQL adapters:
 * the columns and their meaning are the same on both; only the SQL differs.
 */
import type { JobRecord, JobStatus } from "../../core/types.ts";

/** A `jobs` row as a record (payload and result parsed from their JSON text). */
export function toJob(r: Record<string, unknown>): JobRecord {
  return {
    id: r.id as string,
    kind: r.kind as string,
    brain_id: r.brain_id as string,
    status: r.status as JobStatus,
    payload: JSON.parse(r.payload as string),
    result: r.result ? JSON.parse(r.result as string) : null,
    error: (r.error as string | null) ?? null,
    attempts: r.attempts as number,
    created_at: r.created_at as string,
    updated_at: r.updated_at as string,
    finished_at: (r.finished_at as string | null) ?? null,
  };
}

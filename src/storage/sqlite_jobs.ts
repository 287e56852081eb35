/** @module Durable job rows for the SQLite store. */
import type { DatabaseSync } from "node:sqlite";
import type { JobRecord, JobStatus } from "../core/types.ts";
import { transaction } from "./database.ts";

function toJob(r: Record<string, unknown>): JobRecord {
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

/** Inserts a queued job. */
export function enqueueJob(
  db: DatabaseSync,
  job: { id: string; kind: string; brain_id: string; payload: Record<string, unknown> },
): JobRecord {
  const now = new Date().toISOString();
  db.prepare(
    "INSERT INTO jobs (id, kind, brain_id, status, payload, created_at, updated_at) VALUES (?, ?, ?, 'queued', ?, ?, ?)",
  ).run(job.id, job.kind, job.brain_id, JSON.stringify(job.payload), now, now);
  return getJob(db, job.id)!;
}

/**
 * Which jobs may be claimed at `$now`: queued ones whose retry delay (if any) is over, and running
 * ones whose lease expired (their process died).
 */
const RUNNABLE = `(status = 'queued' AND (run_after IS NULL OR run_after <= $now))
  OR (status = 'running' AND lease_until < $now)`;

/** Claims the oldest runnable job. */
export function claimJob(db: DatabaseSync, leaseMs: number): JobRecord | null {
  // A read first: every engram start and every queued ingest looks for work, and taking the write
  // lock only to find nothing would make a start wait behind another process's import.
  const runnable = db.prepare(`SELECT 1 FROM jobs WHERE ${RUNNABLE} LIMIT 1`).get({
    now: new Date().toISOString(),
  });
  if (!runnable) return null;
  return transaction(db, () => {
    const now = new Date();
    const row = db.prepare(
      `SELECT id FROM jobs WHERE ${RUNNABLE} ORDER BY created_at, rowid LIMIT 1`,
    ).get({ now: now.toISOString() }) as { id: string } | undefined;
    if (!row) return null;
    db.prepare(
      "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_until = ?, run_after = NULL, updated_at = ? WHERE id = ?",
    ).run(new Date(now.getTime() + leaseMs).toISOString(), now.toISOString(), row.id);
    return getJob(db, row.id);
  });
}

/** Extends the lease of a running job. */
export function renewJob(db: DatabaseSync, id: string, leaseMs: number): void {
  db.prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND status = 'running'").run(
    new Date(Date.now() + leaseMs).toISOString(),
    id,
  );
}

/** Marks a job completed. */
export function completeJob(db: DatabaseSync, id: string, result: Record<string, unknown>): void {
  const now = new Date().toISOString();
  db.prepare(
    "UPDATE jobs SET status = 'completed', result = ?, error = NULL, lease_until = NULL, updated_at = ?, finished_at = ? WHERE id = ?",
  ).run(JSON.stringify(result), now, now, id);
}

/** Marks a job failed, or queues it again when it may be retried, not before `delayMs` from now. */
export function failJob(
  db: DatabaseSync,
  id: string,
  error: string,
  options: { retry: boolean; delayMs?: number },
): void {
  const now = new Date();
  const at = now.toISOString();
  const delay = options.retry && options.delayMs && options.delayMs > 0 ? options.delayMs : 0;
  const runAfter = delay > 0 ? new Date(now.getTime() + delay).toISOString() : null;
  db.prepare(
    `UPDATE jobs SET status = ?, error = ?, lease_until = NULL, run_after = ?, updated_at = ?, finished_at = ?
      WHERE id = ?`,
  ).run(options.retry ? "queued" : "failed", error, runAfter, at, options.retry ? null : at, id);
}

/**
 * The earliest `run_after` of a queued job, or null. A time already past is still returned: the
 * job became runnable between the caller's claim and this read, and a waiter must not miss it.
 */
export function nextDelayedJobAt(db: DatabaseSync): string | null {
  const row = db.prepare(
    "SELECT min(run_after) AS at FROM jobs WHERE status = 'queued' AND run_after IS NOT NULL",
  ).get() as { at: string | null };
  return row.at;
}

/** A queued or running job of a kind whose payload has the given values. */
export function findActiveJob(
  db: DatabaseSync,
  o: { kind: string; brainId: string; payload: Record<string, string> },
): JobRecord | null {
  const keys = Object.keys(o.payload);
  const row = db.prepare(
    `SELECT * FROM jobs WHERE kind = ? AND brain_id = ? AND status IN ('queued','running')
       ${keys.map(() => "AND json_extract(payload, ?) = ?").join(" ")}
     ORDER BY created_at LIMIT 1`,
  ).get(o.kind, o.brainId, ...keys.flatMap((k) => [`$.${k}`, o.payload[k]]));
  return row ? toJob(row) : null;
}

/** A job by id. */
export function getJob(db: DatabaseSync, id: string): JobRecord | null {
  const row = db.prepare("SELECT * FROM jobs WHERE id = ?").get(id);
  return row ? toJob(row) : null;
}

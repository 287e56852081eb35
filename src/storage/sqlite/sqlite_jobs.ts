/**
 * @module The JobQueue port over SQLite: durable job rows, claimed with a lease that follows the
 * connection's clock. Every change goes through the connection's writes, so a job queued inside a
 * unit of work exists only if the unit commits.
 */
import type { JobInput, JobQueue } from "../../core/ports/job_queue.ts";
import type { JobRecord } from "../../core/types.ts";
import { toJob } from "../shared/job_rows.ts";
import type { Prepares } from "./database.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

/**
 * Which jobs may be claimed at `$now`: queued ones whose retry delay (if any) is over, and running
 * ones whose lease expired (their process died).
 */
const RUNNABLE = `(status = 'queued' AND (run_after IS NULL OR run_after <= $now))
  OR (status = 'running' AND lease_until < $now)`;

/** Jobs over one connection. */
export class SqliteJobQueue implements JobQueue {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  enqueueJob(job: JobInput): Promise<JobRecord> {
    return this.#conn.write(() => {
      const now = this.#now();
      this.#conn.prepare(
        "INSERT INTO jobs (id, kind, brain_id, status, payload, created_at, updated_at) VALUES (?, ?, ?, 'queued', ?, ?, ?)",
      ).run(job.id, job.kind, job.brain_id, JSON.stringify(job.payload), now, now);
      return getJob(this.#conn, job.id)!;
    });
  }

  async claimJob(leaseMs: number): Promise<JobRecord | null> {
    // A read first: every engram start and every queued ingest looks for work, and taking the
    // write lock only to find nothing would make a start wait behind another process's import.
    const runnable = await this.#conn.read(() =>
      this.#conn.prepare(`SELECT 1 FROM jobs WHERE ${RUNNABLE} LIMIT 1`).get({ now: this.#now() })
    );
    if (!runnable) return null;
    return await this.#conn.write(() => {
      const now = this.#conn.now();
      const row = this.#conn.prepare(
        `SELECT id FROM jobs WHERE ${RUNNABLE} ORDER BY created_at, rowid LIMIT 1`,
      ).get({ now: now.toISOString() }) as { id: string } | undefined;
      if (!row) return null;
      this.#conn.prepare(
        "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_until = ?, run_after = NULL, updated_at = ? WHERE id = ?",
      ).run(new Date(now.getTime() + leaseMs).toISOString(), now.toISOString(), row.id);
      return getJob(this.#conn, row.id);
    });
  }

  renewJob(id: string, leaseMs: number): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND status = 'running'").run(
        new Date(this.#conn.now().getTime() + leaseMs).toISOString(),
        id,
      );
    });
  }

  completeJob(id: string, result: Record<string, unknown>): Promise<void> {
    return this.#conn.write(() => {
      const now = this.#now();
      this.#conn.prepare(
        "UPDATE jobs SET status = 'completed', result = ?, error = NULL, lease_until = NULL, updated_at = ?, finished_at = ? WHERE id = ?",
      ).run(JSON.stringify(result), now, now, id);
    });
  }

  failJob(id: string, error: string, options: { retry: boolean; delayMs?: number }): Promise<void> {
    return this.#conn.write(() => {
      const now = this.#conn.now();
      const at = now.toISOString();
      const delay = options.retry && options.delayMs && options.delayMs > 0 ? options.delayMs : 0;
      const runAfter = delay > 0 ? new Date(now.getTime() + delay).toISOString() : null;
      this.#conn.prepare(
        `UPDATE jobs SET status = ?, error = ?, lease_until = NULL, run_after = ?, updated_at = ?, finished_at = ?
          WHERE id = ?`,
      ).run(
        options.retry ? "queued" : "failed",
        error,
        runAfter,
        at,
        options.retry ? null : at,
        id,
      );
    });
  }

  /**
   * The earliest `run_after` of a queued job, or null. A time already past is still returned: the
   * job became runnable between the caller's claim and this read, and a waiter must not miss it.
   */
  nextDelayedJobAt(): Promise<string | null> {
    return this.#conn.read(() =>
      (this.#conn.prepare(
        "SELECT min(run_after) AS at FROM jobs WHERE status = 'queued' AND run_after IS NOT NULL",
      ).get() as { at: string | null }).at
    );
  }

  nextLeaseExpiryAt(): Promise<string | null> {
    return this.#conn.read(() =>
      (this.#conn.prepare(
        "SELECT min(lease_until) AS at FROM jobs WHERE status = 'running' AND lease_until IS NOT NULL",
      ).get() as { at: string | null }).at
    );
  }

  findActiveJob(
    kind: string,
    brainId: string,
    payload: Record<string, string>,
  ): Promise<JobRecord | null> {
    return this.#conn.read(() => {
      const keys = Object.keys(payload);
      const row = this.#conn.prepare(
        `SELECT * FROM jobs WHERE kind = ? AND brain_id = ? AND status IN ('queued','running')
           ${keys.map(() => "AND json_extract(payload, ?) = ?").join(" ")}
         ORDER BY created_at LIMIT 1`,
      ).get(kind, brainId, ...keys.flatMap((k) => [`$.${k}`, payload[k]]));
      return row ? toJob(row) : null;
    });
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.#conn.read(() => getJob(this.#conn, id));
  }

  #now(): string {
    return this.#conn.now().toISOString();
  }
}

function getJob(db: Prepares, id: string): JobRecord | null {
  const row = db.prepare("SELECT * FROM jobs WHERE id = ?").get(id);
  return row ? toJob(row) : null;
}

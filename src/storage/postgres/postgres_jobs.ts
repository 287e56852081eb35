/**
 * @module The JobQueue port over PostgreSQL: durable job rows, claimed with `FOR UPDATE SKIP
 * LOCKED` (nodes claiming at once each get a different job, none waits on another) and a lease that
 * follows engram's clock, never the server's.
 */
import type { JobInput, JobQueue } from "../../core/ports/job_queue.ts";
import type { JobRecord } from "../../core/types.ts";
import { toJob } from "../shared/job_rows.ts";
import type { PostgresConnection, Queries } from "./connection.ts";

/**
 * Which jobs may be claimed at `$1`: queued ones whose retry delay (if any) is over, and running
 * ones whose lease expired (their process died).
 */
const RUNNABLE = `((status = 'queued' AND (run_after IS NULL OR run_after <= $1))
  OR (status = 'running' AND lease_until < $1))`;

/** Jobs over one pool. */
export class PostgresJobQueue implements JobQueue {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  enqueueJob(job: JobInput): Promise<JobRecord> {
    return this.#conn.write(async (sql) => {
      const now = this.#now();
      const [row] = await sql`
        INSERT INTO jobs (id, kind, brain_id, status, payload, created_at, updated_at)
        VALUES (${job.id}, ${job.kind}, ${job.brain_id}, 'queued', ${JSON.stringify(job.payload)},
          ${now}, ${now})
        RETURNING *`;
      return toJob(row);
    });
  }

  claimJob(leaseMs: number): Promise<JobRecord | null> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now();
      const lease = new Date(now.getTime() + leaseMs).toISOString();
      const [row] = await sql.unsafe(
        `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_until = $2,
                         run_after = NULL, updated_at = $1
          WHERE id = (SELECT id FROM jobs WHERE ${RUNNABLE}
                       ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING *`,
        [now.toISOString(), lease],
      );
      return row ? toJob(row) : null;
    });
  }

  renewJob(id: string, leaseMs: number): Promise<void> {
    return this.#conn.write(async (sql) => {
      const lease = new Date(this.#conn.now().getTime() + leaseMs).toISOString();
      await sql`UPDATE jobs SET lease_until = ${lease} WHERE id = ${id} AND status = 'running'`;
    });
  }

  completeJob(id: string, result: Record<string, unknown>): Promise<void> {
    return this.#conn.write(async (sql) => {
      const now = this.#now();
      await sql`
        UPDATE jobs SET status = 'completed', result = ${JSON.stringify(result)}, error = NULL,
                        lease_until = NULL, updated_at = ${now}, finished_at = ${now}
         WHERE id = ${id}`;
    });
  }

  failJob(id: string, error: string, options: { retry: boolean; delayMs?: number }): Promise<void> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now();
      const at = now.toISOString();
      const delay = options.retry && options.delayMs && options.delayMs > 0 ? options.delayMs : 0;
      const runAfter = delay > 0 ? new Date(now.getTime() + delay).toISOString() : null;
      await sql`
        UPDATE jobs SET status = ${options.retry ? "queued" : "failed"}, error = ${error},
                        lease_until = NULL, run_after = ${runAfter}, updated_at = ${at},
                        finished_at = ${options.retry ? null : at}
         WHERE id = ${id}`;
    });
  }

  /**
   * The earliest `run_after` of a queued job, or null. A time already past is still returned: the
   * job became runnable between the caller's claim and this read, and a waiter must not miss it.
   */
  nextDelayedJobAt(): Promise<string | null> {
    return this.#conn.read(async (sql) => {
      const [{ at }] = await sql<{ at: string | null }[]>`
        SELECT min(run_after) AS at FROM jobs WHERE status = 'queued' AND run_after IS NOT NULL`;
      return at;
    });
  }

  nextLeaseExpiryAt(): Promise<string | null> {
    return this.#conn.read(async (sql) => {
      const [{ at }] = await sql<{ at: string | null }[]>`
        SELECT min(lease_until) AS at FROM jobs
         WHERE status = 'running' AND lease_until IS NOT NULL`;
      return at;
    });
  }

  findActiveJob(
    kind: string,
    brainId: string,
    payload: Record<string, string>,
  ): Promise<JobRecord | null> {
    return this.#conn.read(async (sql) => {
      const keys = Object.keys(payload);
      const matches = keys.map((_, i) => `AND payload::json ->> $${3 + 2 * i} = $${4 + 2 * i}`);
      const [row] = await sql.unsafe(
        `SELECT * FROM jobs WHERE kind = $1 AND brain_id = $2 AND status IN ('queued','running')
           ${matches.join(" ")}
         ORDER BY created_at, seq LIMIT 1`,
        [kind, brainId, ...keys.flatMap((k) => [k, payload[k]])],
      );
      return row ? toJob(row) : null;
    });
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.#conn.read((sql) => getJob(sql, id));
  }

  #now(): string {
    return this.#conn.now().toISOString();
  }
}

async function getJob(sql: Queries, id: string): Promise<JobRecord | null> {
  const [row] = await sql`SELECT * FROM jobs WHERE id = ${id}`;
  return row ? toJob(row) : null;
}

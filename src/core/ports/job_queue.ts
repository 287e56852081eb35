/** @module The durable job queue port: background work that survives a crash of its process. */
import type { JobRecord } from "../types.ts";

/** A new job. */
export interface JobInput {
  id: string;
  kind: string;
  brain_id: string;
  payload: Record<string, unknown>;
}

/** Durable jobs, claimed with a lease by whichever process runs them. */
export interface JobQueue {
  /** Queues a durable job. */
  enqueueJob(job: JobInput): Promise<JobRecord>;
  /**
   * Claims the oldest runnable job (queued, or running with an expired lease after a crash) for
   * `leaseMs`, counting an attempt; null when there is none.
   */
  claimJob(leaseMs: number): Promise<JobRecord | null>;
  /** Extends a running job's lease (the worker is alive). */
  renewJob(id: string, leaseMs: number): Promise<void>;
  /** Marks a job completed with its result. */
  completeJob(id: string, result: Record<string, unknown>): Promise<void>;
  /**
   * Marks a job failed for good, or puts it back in the queue to retry — not before `delayMs`
   * from now when given (claimJob skips it until then).
   */
  failJob(id: string, error: string, options: { retry: boolean; delayMs?: number }): Promise<void>;
  /** When the earliest queued job waiting on a retry delay becomes runnable (ISO time), or null. */
  nextDelayedJobAt(): Promise<string | null>;
  /**
   * When the earliest lease of a running job runs out (ISO time), or null: a job whose process was
   * killed is claimable from then on, and an idle runner wakes for it.
   */
  nextLeaseExpiryAt(): Promise<string | null>;
  /** A queued or running job of `kind` in a brain whose payload has these values, or null. */
  findActiveJob(
    kind: string,
    brainId: string,
    payload: Record<string, string>,
  ): Promise<JobRecord | null>;
  /** A job by id. */
  getJob(id: string): Promise<JobRecord | null>;
}

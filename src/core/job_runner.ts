/**
 * @module Runs durable background jobs one at a time in this process.
 *
 * A job is claimed with a lease that is renewed while it runs; if the process dies, the lease
 * runs out and a runner picks the job up again: an idle runner wakes when the earliest lease it
 * knows of runs out, and — given `pollMs` — looks again that often for leases other processes took
 * since, so a running engram takes over a killed process's job within about one lease.
 * A job whose process died `maxAttempts` times, or that fails for a reason a retry cannot fix,
 * is marked failed with that reason — never dropped silently.
 */
import { concealInternal } from "./internal_errors.ts";
import type { Logger } from "./logger.ts";
import type { JobQueue } from "./ports/job_queue.ts";
import type { JobRecord } from "./types.ts";

/** Does one kind of job; returns the result stored on the job. */
export type JobHandler = (job: JobRecord) => Promise<Record<string, unknown>>;

/** Options for a runner. */
export interface JobRunnerOptions {
  handlers: Record<string, JobHandler>;
  logger: Logger;
  leaseMs: number;
  maxAttempts?: number;
  /** Pause before the first retry of a failed job; doubled for each further attempt. */
  retryDelayMs?: number;
  /** Longest idle pause before looking for jobs again (other processes' expired leases). */
  pollMs?: number;
}

/** Longest pause between two attempts of a job. */
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** One process's job worker. */
export class JobRunner {
  #queue: JobQueue;
  #o: Required<Omit<JobRunnerOptions, "pollMs">> & Pick<JobRunnerOptions, "pollMs">;
  #loop: Promise<void> | null = null;
  #again = false;
  #waiters = new Map<string, Set<() => void>>();
  /** Wakes the runner when a delayed job or an expired lease makes a job runnable. */
  #wake: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(queue: JobQueue, options: JobRunnerOptions) {
    this.#queue = queue;
    this.#o = {
      ...options,
      maxAttempts: options.maxAttempts ?? 3,
      retryDelayMs: options.retryDelayMs ?? 2000,
    };
  }

  /** Starts working through runnable jobs, unless already working (then it looks again after). */
  kick(): void {
    if (this.#loop) {
      this.#again = true;
      return;
    }
    this.#loop = this.#work().finally(() => {
      this.#loop = null;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /**
   * Resolves when no job is running in this process, and stops waiting for delayed retries
   * (used before exiting; a later engram process runs them).
   */
  async drain(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#wake);
    while (this.#loop) await this.#loop;
    clearTimeout(this.#wake);
  }

  /** The job once it has finished, or as it stands after `timeoutMs`; null when unknown. */
  async wait(id: string, timeoutMs: number): Promise<JobRecord | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Listen before reading, so a job finishing in between still wakes this wait.
      let done = () => {};
      const woken = new Promise<void>((resolve) => (done = resolve));
      const set = this.#waiters.get(id) ?? new Set();
      set.add(done);
      this.#waiters.set(id, set);
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const job = await this.#queue.getJob(id);
        const left = deadline - Date.now();
        if (!job || job.status === "completed" || job.status === "failed" || left <= 0) return job;
        // A retried job goes back to the queue; keep waiting until it finishes or time runs out.
        timer = setTimeout(done, left);
        await woken;
      } finally {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
      }
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const job = await this.#queue.claimJob(this.#o.leaseMs);
      if (!job) {
        await this.#wakeWhenRunnable();
        return;
      }
      await this.#run(job);
      for (const notify of [...(this.#waiters.get(job.id) ?? [])]) notify();
      this.#waiters.delete(job.id);
    }
  }

  /**
   * Sleeps until a job could be claimable: a retry delay ends, or a lease runs out (this runner is
   * idle, so every running job is another process's — alive and renewing, or killed). With
   * `pollMs`, never longer than that, since another process may take a lease after this read.
   */
  async #wakeWhenRunnable(): Promise<void> {
    const times = await Promise.all([
      this.#queue.nextDelayedJobAt(),
      this.#queue.nextLeaseExpiryAt(),
    ]);
    clearTimeout(this.#wake);
    if (this.#stopped) return;
    const waits = times.filter((t) => t !== null).map((t) =>
      Math.max(0, Date.parse(t!) - Date.now()) + 5
    );
    if (this.#o.pollMs !== undefined) waits.push(this.#o.pollMs);
    if (waits.length === 0) return;
    this.#wake = setTimeout(() => this.kick(), Math.min(...waits));
  }

  async #run(job: JobRecord): Promise<void> {
    const { logger, maxAttempts, leaseMs } = this.#o;
    if (job.attempts > maxAttempts) {
      await this.#queue.failJob(
        job.id,
        `gave up after ${maxAttempts} attempts: the process running it stopped each time`,
        {
          retry: false,
        },
      );
      return;
    }
    const handler = this.#o.handlers[job.kind];
    if (!handler) {
      await this.#queue.failJob(
        job.id,
        `no handler for job kind "${job.kind}" in this engram version`,
        {
          retry: false,
        },
      );
      return;
    }
    const renew = setInterval(() => {
      this.#queue.renewJob(job.id, leaseMs).catch((err) =>
        logger.warn("job lease renewal failed", { error: String(err) })
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      const result = await handler(job);
      await this.#queue.completeJob(job.id, result);
      logger.info(`job ${job.id} (${job.kind}) completed`);
    } catch (err) {
      // The stored error is what memory_job_status shows a client: internal detail stays in the log.
      const e = concealInternal(err, { logger, what: `job ${job.id} (${job.kind})` });
      const retry = e.retryable && job.attempts < maxAttempts;
      const delayMs = Math.min(
        MAX_RETRY_DELAY_MS,
        this.#o.retryDelayMs * 2 ** Math.max(0, job.attempts - 1),
      );
      await this.#queue.failJob(job.id, `${e.code}: ${e.message}`, { retry, delayMs });
      logger.warn(`job ${job.id} (${job.kind}) ${retry ? "failed; will retry" : "failed"}`, {
        error: e.message,
      });
    } finally {
      clearInterval(renew);
    }
  }
}

import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { JobRecord } from "../../src/core/types.ts";
import { type JobHandler, JobRunner } from "../../src/core/job_runner.ts";
import { openDatabase } from "../../src/storage/sqlite/database.ts";
import { openService, tempDir } from "../helpers.ts";

/** A fresh store with its default brain, and a way to enqueue jobs into it. */
async function setup() {
  const dir = await tempDir();
  const svc = await openService(dir.path);
  const brain = (await svc.storage.brains.listBrains())[0];
  let n = 0;
  return {
    ...svc,
    dir: dir.path,
    enqueue: (kind: string, payload: Record<string, unknown> = {}) =>
      svc.storage.jobs.enqueueJob({ id: `job_test_${++n}`, kind, brain_id: brain.id, payload }),
    runner: (handlers: Record<string, JobHandler>, maxAttempts?: number, logger = silentLogger) =>
      new JobRunner(svc.storage.jobs, {
        handlers,
        logger,
        leaseMs: 60_000,
        maxAttempts,
        retryDelayMs: 0,
      }),
    async [Symbol.asyncDispose]() {
      svc.storage.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** A promise resolved from outside. */
function gate<T = void>() {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => (open = r));
  return { promise, open };
}

Deno.test("a handler's result is stored and the job marked completed", async () => {
  await using s = await setup();
  const seen: JobRecord[] = [];
  const runner = s.runner({
    echo: (job) => {
      seen.push(job);
      return Promise.resolve({ doubled: (job.payload.n as number) * 2 });
    },
  });
  const job = await s.enqueue("echo", { n: 21 });
  runner.kick();
  await runner.drain();
  const done = (await s.storage.jobs.getJob(job.id))!;
  assert.equal(done.status, "completed");
  assert.deepEqual(done.result, { doubled: 42 });
  assert.equal(done.error, null);
  assert.equal(done.attempts, 1);
  assert.notEqual(done.finished_at, null);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].status, "running", "the handler sees the claimed job");
  assert.deepEqual(seen[0].payload, { n: 21 });
});

Deno.test("a retryable failure (provider_unavailable) is retried up to maxAttempts, then failed", async () => {
  await using s = await setup();
  let calls = 0;
  const runner = s.runner({
    flaky: () => {
      calls++;
      return Promise.reject(new EngramError("provider_unavailable", `provider down (${calls})`));
    },
  }, 3);
  const job = await s.enqueue("flaky");
  // Waiting through the retries: wait() must not return while the job is back in the queue.
  const waited = runner.wait(job.id, 30_000);
  runner.kick();
  const final = (await waited)!;
  await runner.drain();
  assert.equal(final.status, "failed");
  assert.equal(final.attempts, 3);
  assert.equal(final.error, "provider_unavailable: provider down (3)");
  assert.notEqual(final.finished_at, null);
  assert.equal(calls, 3, "run exactly maxAttempts times");
});

Deno.test("a retryable failure that clears up on the next attempt completes", async () => {
  await using s = await setup();
  let calls = 0;
  const runner = s.runner({
    flaky: () =>
      ++calls === 1
        ? Promise.reject(new EngramError("rate_limited", "slow down"))
        : Promise.resolve({ ok: true }),
  });
  const job = await s.enqueue("flaky");
  runner.kick();
  await runner.drain();
  const done = (await s.storage.jobs.getJob(job.id))!;
  assert.equal(done.status, "completed");
  assert.equal(done.attempts, 2);
  assert.equal(done.error, null);
  assert.deepEqual(done.result, { ok: true });
});

Deno.test("a non-retryable failure fails at once with its code and message; an internal one's detail is only logged", async () => {
  await using s = await setup();
  let calls = 0;
  const errors: Record<string, unknown>[] = [];
  const logger = {
    ...silentLogger,
    error: (_m: string, f?: Record<string, unknown>) => errors.push(f!),
  };
  const runner = s.runner(
    {
      strict: () => {
        calls++;
        return Promise.reject(new EngramError("conflict", "file changed after it was queued"));
      },
      crashy: () => {
        calls++;
        return Promise.reject(new TypeError("cannot read properties of undefined"));
      },
    },
    undefined,
    logger,
  );
  const a = await s.enqueue("strict");
  const b = await s.enqueue("crashy");
  runner.kick();
  await runner.drain();
  const ja = (await s.storage.jobs.getJob(a.id))!;
  assert.equal(ja.status, "failed");
  assert.equal(ja.attempts, 1);
  assert.equal(ja.error, "conflict: file changed after it was queued");
  const jb = (await s.storage.jobs.getJob(b.id))!;
  assert.equal(jb.status, "failed");
  assert.equal(jb.attempts, 1);
  // memory_job_status shows this to clients: a reference, with the detail in the server log.
  const ref = jb.error!.match(
    /^internal: unexpected error \(ref ([0-9a-f]{10})\); see the server log$/,
  )?.[1];
  assert.ok(ref, jb.error!);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].ref, ref);
  assert.match(String(errors[0].error), /cannot read properties of undefined/);
  assert.match(String(errors[0].stack), /TypeError: cannot read properties of undefined\n\s+at /);
  assert.equal(calls, 2);
});

Deno.test("a job of an unknown kind is failed with a message, not dropped", async () => {
  await using s = await setup();
  const runner = s.runner({});
  const job = await s.enqueue("mystery");
  runner.kick();
  await runner.drain();
  const failed = (await s.storage.jobs.getJob(job.id))!;
  assert.equal(failed.status, "failed");
  assert.equal(failed.error, 'no handler for job kind "mystery" in this engram version');
  assert.notEqual(failed.finished_at, null);
});

Deno.test("wait resolves on the completion event, long before its timeout", async () => {
  await using s = await setup();
  const started = gate();
  const release = gate();
  const runner = s.runner({
    slow: async () => {
      started.open();
      await release.promise;
      return { done: true };
    },
  });
  const job = await s.enqueue("slow");
  runner.kick();
  await started.promise;
  let resolved = false;
  const t0 = performance.now();
  const waited = runner.wait(job.id, 60_000).then((j) => {
    resolved = true;
    return j;
  });
  // Let the wait register and any pending microtasks run: it must still be waiting.
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(resolved, false, "wait returned while the job was still running");
  release.open();
  const done = (await waited)!;
  assert.equal(done.status, "completed");
  assert.deepEqual(done.result, { done: true });
  assert.ok(performance.now() - t0 < 30_000, "wait ran into its timeout instead of the event");
  await runner.drain();
});

Deno.test("wait returns the job as it stands when the timeout passes first", async () => {
  await using s = await setup();
  const started = gate();
  const release = gate();
  const runner = s.runner({
    slow: async () => {
      started.open();
      await release.promise;
      return {};
    },
  });
  const job = await s.enqueue("slow");
  runner.kick();
  await started.promise;
  const running = (await runner.wait(job.id, 20))!;
  assert.equal(running.status, "running");
  assert.equal(running.finished_at, null);
  const immediate = (await runner.wait(job.id, 0))!;
  assert.equal(immediate.status, "running");
  release.open();
  await runner.drain();
  assert.equal((await runner.wait(job.id, 0))!.status, "completed");
});

Deno.test("wait on an unknown job id returns null at once", async () => {
  await using s = await setup();
  const runner = s.runner({});
  assert.equal(await runner.wait("job_nope", 60_000), null);
});

Deno.test("drain waits for the loop, including jobs queued while it was running", async () => {
  await using s = await setup();
  const order: string[] = [];
  const runner = s.runner({
    step: async (job) => {
      order.push(job.payload.name as string);
      if (job.payload.name === "first") {
        // Queued and kicked mid-run: the running loop must pick it up before drain resolves.
        await s.enqueue("step", { name: "second" });
        runner.kick();
      }
      return {};
    },
  });
  await s.enqueue("step", { name: "first" });
  runner.kick();
  runner.kick();
  await runner.drain();
  assert.deepEqual(order, ["first", "second"]);
  for (const id of ["job_test_1", "job_test_2"]) {
    assert.equal((await s.storage.jobs.getJob(id))!.status, "completed", id);
  }
});

Deno.test("a running job with an expired lease is claimed again; at max attempts it is given up", async () => {
  await using s = await setup();
  const ran: string[] = [];
  const runner = s.runner({
    work: (job) => {
      ran.push(job.id);
      return Promise.resolve({ attempt: job.attempts });
    },
  }, 3);
  const orphan = await s.enqueue("work");
  const hopeless = await s.enqueue("work");
  const live = await s.enqueue("work");
  const db = openDatabase(`${s.dir}/engram.db`);
  try {
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 600_000).toISOString();
    const set = db.prepare(
      "UPDATE jobs SET status = 'running', lease_until = ?, attempts = ? WHERE id = ?",
    );
    set.run(past, 1, orphan.id);
    set.run(past, 3, hopeless.id);
    set.run(future, 1, live.id);
  } finally {
    db.close();
  }
  runner.kick();
  await runner.drain();
  const o = (await s.storage.jobs.getJob(orphan.id))!;
  assert.equal(o.status, "completed");
  assert.equal(o.attempts, 2);
  assert.deepEqual(o.result, { attempt: 2 });
  const h = (await s.storage.jobs.getJob(hopeless.id))!;
  assert.equal(h.status, "failed");
  assert.equal(
    h.error,
    "gave up after 3 attempts: the process running it stopped each time",
  );
  assert.equal(
    (await s.storage.jobs.getJob(live.id))!.status,
    "running",
    "a live lease is left alone",
  );
  assert.deepEqual(ran, [orphan.id]);
});

Deno.test("an idle runner wakes when another process's lease runs out, and takes the job over", async () => {
  await using s = await setup();
  const runner = s.runner({ work: (job) => Promise.resolve({ attempt: job.attempts }) });
  const job = await s.enqueue("work");
  // Claimed elsewhere with a short lease that is never renewed: that process died.
  await s.storage.jobs.claimJob(300);
  runner.kick();
  const done = await runner.wait(job.id, 20_000);
  await runner.drain();
  assert.equal(done?.status, "completed", "taken over without another kick");
  assert.deepEqual(done?.result, { attempt: 2 });
});

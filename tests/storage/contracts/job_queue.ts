/**
 * @module The JobQueue contract: durable jobs claimed oldest first with a lease, retried with a
 * delay, all driven by the storage's clock (the cases move it; nothing sleeps).
 */
import assert from "node:assert/strict";
import type { JobRecord } from "../../../src/core/types.ts";
import { type ContractBackend, type Fixture, newBrain, withBrain } from "./backend.ts";

const LEASE = 60_000;

/** Registers the JobQueue cases for `backend`. */
export function jobQueueContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} JobQueue: ${name}`, fn);

  /** Queues a job one second after the previous one, so creation order is unambiguous. */
  const enqueue = (
    f: Fixture,
    id: string,
    extra: { kind?: string; brainId?: string; payload?: Record<string, unknown> } = {},
  ): Promise<JobRecord> => {
    f.clock.advance(1_000);
    return f.storage.jobs.enqueueJob({
      id,
      kind: extra.kind ?? "ingest",
      brain_id: extra.brainId ?? f.brain.id,
      payload: extra.payload ?? {},
    });
  };

  test("enqueueJob stores a queued job stamped with the clock; getJob reads it back", async () => {
    await using f = await withBrain(backend);
    const payload = { path: "/a.md", n: 3, nested: { list: [1, "two"] } };
    const job = await enqueue(f, "job_1", { payload });
    const expected: JobRecord = {
      id: "job_1",
      kind: "ingest",
      brain_id: f.brain.id,
      status: "queued",
      payload,
      result: null,
      error: null,
      attempts: 0,
      created_at: f.clock.iso(),
      updated_at: f.clock.iso(),
      finished_at: null,
    };
    assert.deepEqual(job, expected);
    assert.deepEqual(await f.storage.jobs.getJob("job_1"), expected);
    assert.equal(await f.storage.jobs.getJob("job_missing"), null);
  });

  test("claimJob takes the oldest runnable job, counting an attempt, until none is left", async () => {
    await using f = await withBrain(backend);
    assert.equal(await f.storage.jobs.claimJob(LEASE), null, "an empty queue");
    // Ids against creation order: only age may decide.
    for (const id of ["job_c", "job_b", "job_a"]) await enqueue(f, id);
    f.clock.advance(5_000);
    const first = await f.storage.jobs.claimJob(LEASE);
    assert.equal(first?.id, "job_c");
    assert.equal(first.status, "running");
    assert.equal(first.attempts, 1);
    assert.equal(first.updated_at, f.clock.iso());
    assert.deepEqual(await f.storage.jobs.getJob("job_c"), first);
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.id, "job_b");
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.id, "job_a");
    assert.equal(await f.storage.jobs.claimJob(LEASE), null, "all three are leased");
  });

  test("concurrent claims never hand out the same job", async () => {
    await using f = await withBrain(backend);
    for (const id of ["job_1", "job_2", "job_3"]) await enqueue(f, id);
    const claimed = await Promise.all(
      [1, 2, 3, 4, 5].map(() => f.storage.jobs.claimJob(LEASE)),
    );
    const ids = claimed.filter((j) => j !== null).map((j) => j!.id).sort();
    assert.deepEqual(ids, ["job_1", "job_2", "job_3"]);
    assert.equal(claimed.filter((j) => j === null).length, 2);
    for (const j of claimed) if (j) assert.equal(j.attempts, 1);
  });

  test("an expired lease makes a running job claimable again, counting another attempt", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.attempts, 1);
    f.clock.advance(LEASE - 1_000);
    assert.equal(await f.storage.jobs.claimJob(LEASE), null, "the lease still holds");
    f.clock.advance(2_000);
    const again = await f.storage.jobs.claimJob(LEASE);
    assert.equal(again?.id, "job_1", "its worker died: someone else takes it over");
    assert.equal(again.attempts, 2);
    assert.equal(again.status, "running");
    assert.equal(await f.storage.jobs.claimJob(LEASE), null, "the new lease holds");
  });

  test("renewJob extends a running job's lease from now", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    await f.storage.jobs.claimJob(LEASE);
    f.clock.advance(50_000);
    await f.storage.jobs.renewJob("job_1", LEASE);
    f.clock.advance(50_000);
    assert.equal(await f.storage.jobs.claimJob(LEASE), null, "renewed 50 s ago for 60 s");
    f.clock.advance(11_000);
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.attempts, 2, "the renewed lease ran out");
  });

  test("completeJob records the result; a completed job is never claimed again", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    await f.storage.jobs.claimJob(LEASE);
    f.clock.advance(3_000);
    await f.storage.jobs.completeJob("job_1", { chunks: 4, nested: { ok: true } });
    const done = (await f.storage.jobs.getJob("job_1"))!;
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result, { chunks: 4, nested: { ok: true } });
    assert.equal(done.error, null);
    assert.equal(done.finished_at, f.clock.iso());
    assert.equal(done.updated_at, f.clock.iso());
    assert.equal(done.attempts, 1);
    f.clock.advance(10 * LEASE);
    assert.equal(await f.storage.jobs.claimJob(LEASE), null);
  });

  test("failJob without retry fails a job for good", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    await f.storage.jobs.claimJob(LEASE);
    f.clock.advance(1_000);
    await f.storage.jobs.failJob("job_1", "invalid_argument: bad file", {
      retry: false,
      delayMs: 60_000,
    });
    const failed = (await f.storage.jobs.getJob("job_1"))!;
    assert.equal(failed.status, "failed");
    assert.equal(failed.error, "invalid_argument: bad file");
    assert.equal(failed.finished_at, f.clock.iso());
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), null, "a failed job waits on nothing");
    f.clock.advance(10 * LEASE);
    assert.equal(await f.storage.jobs.claimJob(LEASE), null);
  });

  test("failJob with retry and no delay queues the job again at once", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    await f.storage.jobs.claimJob(LEASE);
    await f.storage.jobs.failJob("job_1", "provider_unavailable: down", { retry: true });
    const queued = (await f.storage.jobs.getJob("job_1"))!;
    assert.equal(queued.status, "queued");
    assert.equal(queued.error, "provider_unavailable: down");
    assert.equal(queued.finished_at, null);
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), null);
    const again = await f.storage.jobs.claimJob(LEASE);
    assert.equal(again?.id, "job_1");
    assert.equal(again.attempts, 2);
  });

  test("failJob with retry and a delay: not claimed before the delay, claimed after", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    await f.storage.jobs.claimJob(LEASE);
    await f.storage.jobs.failJob("job_1", "rate_limited", { retry: true, delayMs: 30_000 });
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), f.clock.iso(30_000));
    assert.equal((await f.storage.jobs.getJob("job_1"))?.status, "queued");
    f.clock.advance(29_000);
    assert.equal(await f.storage.jobs.claimJob(LEASE), null, "not before its delay");
    f.clock.advance(2_000);
    const claimed = await f.storage.jobs.claimJob(LEASE);
    assert.equal(claimed?.id, "job_1");
    assert.equal(claimed.attempts, 2);
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), null, "a claimed job waits on nothing");
  });

  test("a delayed job does not hold up the jobs queued after it", async () => {
    await using f = await withBrain(backend);
    await enqueue(f, "job_1");
    await enqueue(f, "job_2");
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.id, "job_1");
    await f.storage.jobs.failJob("job_1", "later", { retry: true, delayMs: 60_000 });
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.id, "job_2");
    assert.equal(await f.storage.jobs.claimJob(LEASE), null);
  });

  test("nextLeaseExpiryAt is the earliest lease among running jobs; a finished job holds none", async () => {
    await using f = await withBrain(backend);
    assert.equal(await f.storage.jobs.nextLeaseExpiryAt(), null, "no jobs at all");
    await enqueue(f, "job_1");
    await enqueue(f, "job_2");
    assert.equal(await f.storage.jobs.nextLeaseExpiryAt(), null, "queued jobs hold no lease");
    await f.storage.jobs.claimJob(LEASE);
    f.clock.advance(1_000);
    await f.storage.jobs.claimJob(LEASE);
    assert.equal(await f.storage.jobs.nextLeaseExpiryAt(), f.clock.iso(LEASE - 1_000));
    await f.storage.jobs.renewJob("job_1", LEASE);
    assert.equal(await f.storage.jobs.nextLeaseExpiryAt(), f.clock.iso(LEASE), "renewed: job_2's");
    await f.storage.jobs.completeJob("job_2", {});
    assert.equal(await f.storage.jobs.nextLeaseExpiryAt(), f.clock.iso(LEASE), "job_1's renewal");
    await f.storage.jobs.failJob("job_1", "x", { retry: false });
    assert.equal(await f.storage.jobs.nextLeaseExpiryAt(), null);
  });

  test("nextDelayedJobAt is the earliest delay among queued jobs, even one already due", async () => {
    await using f = await withBrain(backend);
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), null, "no jobs at all");
    await enqueue(f, "job_1");
    await enqueue(f, "job_2");
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), null, "queued without a delay");
    await f.storage.jobs.claimJob(LEASE);
    await f.storage.jobs.claimJob(LEASE);
    const start = f.clock.iso();
    await f.storage.jobs.failJob("job_1", "x", { retry: true, delayMs: 60_000 });
    await f.storage.jobs.failJob("job_2", "x", { retry: true, delayMs: 30_000 });
    const due = new Date(Date.parse(start) + 30_000).toISOString();
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), due);
    f.clock.advance(45_000);
    assert.equal(await f.storage.jobs.nextDelayedJobAt(), due, "a waiter must not miss it");
  });

  test("findActiveJob matches kind, brain and payload values among queued and running jobs", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    await enqueue(f, "job_1", { kind: "ingest", payload: { path: "/a.md", source: "cli" } });
    await enqueue(f, "job_x", { kind: "embed", payload: { path: "/a.md" } });
    await enqueue(f, "job_y", { kind: "ingest", brainId: other.id, payload: { path: "/b.md" } });
    const find = async (kind: string, brainId: string, payload: Record<string, string>) =>
      (await f.storage.jobs.findActiveJob(kind, brainId, payload))?.id ?? null;
    assert.equal(await find("ingest", f.brain.id, { path: "/a.md" }), "job_1");
    assert.equal(await find("ingest", f.brain.id, { path: "/a.md", source: "cli" }), "job_1");
    assert.equal(await find("ingest", f.brain.id, {}), "job_1");
    assert.equal(await find("ingest", f.brain.id, { path: "/b.md" }), null);
    assert.equal(await find("ingest", f.brain.id, { path: "/a.md", source: "http" }), null);
    assert.equal(await find("reindex", f.brain.id, { path: "/a.md" }), null);
    assert.equal(await find("ingest", other.id, { path: "/a.md" }), null);
    assert.equal(await find("ingest", other.id, { path: "/b.md" }), "job_y");
    assert.equal((await f.storage.jobs.claimJob(LEASE))?.id, "job_1");
    assert.equal(await find("ingest", f.brain.id, { path: "/a.md" }), "job_1", "running counts");
    await f.storage.jobs.completeJob("job_1", {});
    assert.equal(await find("ingest", f.brain.id, { path: "/a.md" }), null, "completed does not");
    await f.storage.jobs.claimJob(LEASE);
    await f.storage.jobs.failJob("job_x", "no", { retry: false });
    assert.equal(await find("embed", f.brain.id, { path: "/a.md" }), null, "failed does not");
  });
}

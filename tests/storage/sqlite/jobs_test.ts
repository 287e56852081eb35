import assert from "node:assert/strict";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { openStore, sleep } from "./_store.ts";

async function setup() {
  const s = await openStore();
  let n = 0;
  return {
    ...s,
    enqueue: () =>
      s.storage.jobs.enqueueJob({ id: `job_${++n}`, kind: "k", brain_id: s.brain.id, payload: {} }),
  };
}

Deno.test("jobs: a retry with a delay is not claimed before the delay is over", async () => {
  await using s = await setup();
  const job = await s.enqueue();
  assert.equal((await s.storage.jobs.claimJob(60_000))?.id, job.id);
  const before = Date.now();
  await s.storage.jobs.failJob(job.id, "provider_unavailable: try later", {
    retry: true,
    delayMs: 150,
  });
  const queued = (await s.storage.jobs.getJob(job.id))!;
  assert.equal(queued.status, "queued");
  assert.equal(queued.error, "provider_unavailable: try later");
  assert.equal(queued.finished_at, null);

  const at = await s.storage.jobs.nextDelayedJobAt();
  assert.ok(at, "the delayed job is reported");
  const wait = Date.parse(at) - before;
  assert.ok(wait >= 150 && wait < 1_000, `runnable ${wait} ms after the failure`);
  assert.equal(await s.storage.jobs.claimJob(60_000), null, "not before its delay");
  // Another connection (another process) must skip it too, at the read and at the claim.
  const other = openSqliteStorage(s.file);
  try {
    assert.equal(await other.jobs.claimJob(60_000), null);
    await sleep(Date.parse(at) - Date.now() + 10);
    const claimed = await other.jobs.claimJob(60_000);
    assert.equal(claimed?.id, job.id, "claimed once the delay is over");
    assert.equal(claimed.attempts, 2);
  } finally {
    other.close();
  }
  assert.equal(await s.storage.jobs.nextDelayedJobAt(), null, "a claimed job waits on nothing");
});

Deno.test("jobs: a delayed job does not hold up the jobs queued after it", async () => {
  await using s = await setup();
  const first = await s.enqueue();
  const second = await s.enqueue();
  assert.equal((await s.storage.jobs.claimJob(60_000))?.id, first.id);
  await s.storage.jobs.failJob(first.id, "later", { retry: true, delayMs: 60_000 });
  assert.equal((await s.storage.jobs.claimJob(60_000))?.id, second.id);
  assert.equal(await s.storage.jobs.claimJob(60_000), null);
});

Deno.test("jobs: nextDelayedJobAt is the earliest delay among queued jobs", async () => {
  await using s = await setup();
  assert.equal(await s.storage.jobs.nextDelayedJobAt(), null, "no jobs at all");
  const a = await s.enqueue();
  const b = await s.enqueue();
  assert.equal(
    await s.storage.jobs.nextDelayedJobAt(),
    null,
    "queued without a delay: nothing waits",
  );
  await s.storage.jobs.claimJob(60_000);
  await s.storage.jobs.claimJob(60_000);
  await s.storage.jobs.failJob(a.id, "x", { retry: true, delayMs: 60_000 });
  await s.storage.jobs.failJob(b.id, "x", { retry: true, delayMs: 30_000 });
  const at = (await s.storage.jobs.nextDelayedJobAt())!;
  assert.ok(Math.abs(Date.parse(at) - (Date.now() + 30_000)) < 5_000, at);
});

Deno.test("jobs: a retry without a delay is runnable at once; a final failure waits on nothing", async () => {
  await using s = await setup();
  const job = await s.enqueue();
  await s.storage.jobs.claimJob(60_000);
  await s.storage.jobs.failJob(job.id, "again", { retry: true });
  assert.equal(await s.storage.jobs.nextDelayedJobAt(), null);
  assert.equal((await s.storage.jobs.claimJob(60_000))?.id, job.id);
  await s.storage.jobs.failJob(job.id, "for good", { retry: false, delayMs: 60_000 });
  const failed = (await s.storage.jobs.getJob(job.id))!;
  assert.equal(failed.status, "failed");
  assert.equal(failed.error, "for good");
  assert.notEqual(failed.finished_at, null);
  assert.equal(await s.storage.jobs.nextDelayedJobAt(), null, "a failed job is not waiting to run");
  assert.equal(await s.storage.jobs.claimJob(60_000), null);
});

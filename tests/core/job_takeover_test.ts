/**
 * @module A job whose process was killed (kill -9) is taken over by an engram that is already
 * running and idle, within about one lease of its expiry — not only by a process started later.
 */
import assert from "node:assert/strict";
import { callOk, connectStdio, tempDir } from "../helpers.ts";

const CLAIMER = new URL("../fixtures/job_claimer.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

Deno.test("a running engram takes over a job whose process was killed, once its lease runs out", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/engram.yaml`, "storage:\n  change_poll_ms: 100\n");
  await Deno.writeTextFile(`${dir.path}/note.md`, "# Orphaned\n\nqueued by a process that died\n");
  // The serving engram is up and idle before the job exists, so only its idle wake can find it.
  await using engram = await connectStdio(dir.path, {
    args: ["--tier", "write", "--config", `${dir.path}/engram.yaml`],
  });
  const claimer = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      CONFIG,
      CLAIMER,
      `${dir.path}/engram.db`,
      `${dir.path}/note.md`,
      "1500",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = claimer.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the claimer ended before it printed its job: ${out}`);
    out += value;
  }
  const jobId = JSON.parse(out.split("\n")[0]).job_id as string;
  claimer.kill("SIGKILL");
  await claimer.status;
  await reader.cancel().catch(() => {});

  const before = await callOk<{ status: string; attempts: number }>(engram.client, "memory_job", {
    job_id: jobId,
  });
  assert.equal(before.status, "running", "the dead process still holds the lease");
  const job = await callOk<{ status: string; attempts: number; result: { path: string } }>(
    engram.client,
    "memory_job",
    { job_id: jobId, wait_ms: 30_000 },
  );
  assert.equal(job.status, "completed", `taken over and finished: ${JSON.stringify(job)}`);
  assert.equal(job.attempts, 2, "the killed attempt and the one that finished");
  assert.equal(job.result.path, "/ingest/note.md");
});

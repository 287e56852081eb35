/** @module A file large enough that ingestFile queues it as a job instead of storing it at once. */
import type { JobQueue } from "../../src/core/ports/job_queue.ts";
import type { IngestFileOptions } from "../../src/ingest/ingest_file.ts";

/** Writes `big.md` (about 10 KB) in `dir`; the options ingest it from there, queued on `jobs`. */
export async function queuedBigFile(
  dir: string,
  jobs: JobQueue,
): Promise<{ path: string } & IngestFileOptions> {
  const path = `${dir}/big.md`;
  await Deno.writeTextFile(path, "# Big\n" + "word ".repeat(2000));
  return { path, roots: [dir], cwd: dir, queue: { bytes: 100, jobs } };
}

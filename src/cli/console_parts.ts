/**
 * @module What `engram serve` gives the web console besides the session deps (docs/console.md):
 * token management, and uploads — each uploaded file written under `<data>/uploads/` and ingested
 * as a background job exactly as `memory_ingest_file` queues one, the file removed once its job
 * has finished — and the upstream servers' review state when servers are configured.
 */
import { join } from "node:path";
import type { ResolvedConfig } from "../config/load.ts";
import { EngramError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { CallerContext, IngestResponse } from "../core/types.ts";
import type { ConsoleParts, ConsoleUpstreams, UploadedFile } from "../http/console/console_deps.ts";
import type { EnvSnapshot } from "../config/env.ts";
import { ingestFile } from "../ingest/ingest_file.ts";
import type { Serving } from "./serving.ts";

/** The console's parts for a serving process. */
export function consoleParts(
  serving: Serving,
  o: { config: ResolvedConfig; logger: Logger; env: EnvSnapshot },
): ConsoleParts {
  const { runtime, jobs } = serving;
  const uploads = join(o.config.dataDir, "uploads");
  // The upstream client's modules load on the first visit of the upstream pages, not at start-up.
  let upstreams: Promise<ConsoleUpstreams> | undefined;
  const lazy = () =>
    upstreams ??= import("./console_upstreams.ts").then((m) =>
      m.consoleUpstreams(runtime, { config: o.config, env: o.env })
    );
  return {
    upstreams: {
      servers: async () => (await lazy()).servers(),
      capabilities: async (server) => (await lazy()).capabilities(server),
      exposure: async () => (await lazy()).exposure(),
      report: async (since) => (await lazy()).report(since),
      // The traces are the runtime's own: nothing of the upstream client to load.
      traces: (t) => runtime.traces.traces(t),
      approve: async (key, a) => (await lazy()).approve(key, a),
      revoke: async (key, a) => (await lazy()).revoke(key, a),
    },
    tokens: {
      list: () => runtime.tokens.list(),
      create: (input) => runtime.tokens.create(input),
      revoke: (id) => runtime.tokens.revoke(id),
    },
    upload: async (caller: CallerContext, file: UploadedFile): Promise<IngestResponse> => {
      const relative = uploadPath(file.name);
      // One folder per upload, so two uploads of one name never share a file; its last folder
      // is `upload`, so documents land under /ingest/upload/.
      const root = join(uploads, crypto.randomUUID(), "upload");
      const path = join(root, ...relative);
      await Deno.mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
      await Deno.writeFile(path, file.bytes, { mode: 0o600 });
      const remove = () =>
        Deno.remove(join(root, ".."), { recursive: true }).catch((err) =>
          o.logger.warn("an uploaded file could not be removed", { path, error: String(err) })
        );
      try {
        // queue bytes 0: every file is a job, whose progress the console follows.
        const r = await ingestFile(serving.session.service, caller, {
          path,
          brain: file.brain,
          roots: [root],
          cwd: root,
          queue: { bytes: 0, jobs: runtime.jobQueue },
        });
        if (r.status !== "queued" || !r.job_id) {
          await remove();
          return r;
        }
        jobs.kick();
        void removeWhenDone(jobs, { id: r.job_id, remove });
        return r;
      } catch (err) {
        await remove();
        throw err;
      }
    },
  };
}

/** Removes an upload once its job finished (a job the next process takes over keeps its file). */
async function removeWhenDone(
  jobs: Serving["jobs"],
  o: { id: string; remove: () => Promise<void> },
): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const job = await jobs.wait(o.id, 60_000);
    if (!job || job.status === "completed" || job.status === "failed") {
      await o.remove();
      return;
    }
  }
}

/** The path segments of an uploaded file's name (a folder upload sends `folder/sub/a.md`). */
export function uploadPath(name: string): string[] {
  const parts = name.split(/[\\/]+/).filter((p) => p !== "" && p !== "." && p !== "..");
  if (parts.length === 0 || parts.some((p) => p.includes("\0") || p.length > 255)) {
    throw new EngramError(
      "invalid_argument",
      `cannot store an upload named "${name.slice(0, 100)}"; give a file name such as notes.md`,
    );
  }
  return parts;
}

/** @module memory_ingest_file, memory_ingest_url and memory_job. */
import { z } from "zod";
import { EngramError } from "../../../core/errors.ts";
import { brain } from "../../../core/schemas.ts";
import { FORMATS } from "../../../ingest/formats.ts";
import type { IngestContext } from "../../../ingest/context.ts";
import type { IngestResponse } from "../../../core/types.ts";
import type { OutputSchemas } from "../output_schemas.ts";
import { ADDITIVE, defineTool, READ_ONLY, type ToolContext } from "../tool.ts";
import { warningLines } from "./documents.ts";

const ingestResponse = (o: OutputSchemas) =>
  z.looseObject({
    status: z.enum(["completed", "queued"]).optional(),
    job_id: z.string().optional(),
    document_id: z.string(),
    path: z.string(),
    hash: z.string(),
    chunk_count: z.number().int().min(0),
    embedded_count: z.number().int().min(0),
    duration_ms: z.number().int().min(0),
    reused: z.boolean(),
    /** What reading the file could not take as written (front matter), when there is some. */
    warnings: o.WarningsSchema.optional(),
  });

function ingestContext(ctx: ToolContext): IngestContext {
  if (!ctx.ingest) {
    throw new EngramError("not_implemented", "ingestion is not available in this session");
  }
  return ctx.ingest;
}

function summary(r: IngestResponse): string {
  if (r.status === "queued") return `Queued ${r.path} as job ${r.job_id}; check it with memory_job`;
  return r.reused
    ? `Unchanged: ${r.path} (document ${r.document_id}, ${r.chunk_count} chunks); nothing stored`
    : `Ingested ${r.path} (document ${r.document_id}, ${r.chunk_count} chunks, ${r.duration_ms} ms)${
      warningLines(r.warnings)
    }`;
}

/** Ingest a local file. */
export const memoryIngestFile = defineTool({
  name: "memory_ingest_file",
  title: "Ingest a file",
  tier: "write",
  description:
    "Ingest a local file (at most 25 MiB): markdown (front matter becomes title, tags, metadata), text, PDF, or JSON (chat transcripts become a conversation). Only files under the configured allowed_file_roots or, over stdio, the roots the client shares. Stored at /ingest/<root>/<path>; an unchanged file is reused. A large file returns status 'queued' and a job_id for memory_job.",
  input: z.object({
    path: z.string().min(1).max(4096).describe(
      "Absolute path, or relative to the server's working directory",
    ),
    brain,
    as: z.enum(FORMATS).optional().describe("Format; else from the extension"),
  }),
  output: ingestResponse,
  annotations: ADDITIVE,
  run: async (ctx, args) => {
    const ingest = ingestContext(ctx);
    const { ingestFile } = await import("../../../ingest/ingest_file.ts");
    const r = await ingestFile(ctx.service, ctx.caller, {
      path: args.path,
      brain: args.brain,
      as: args.as,
      roots: [...ingest.roots, ...(await ingest.clientRoots?.() ?? [])],
      cwd: ingest.cwd,
      queue: { bytes: ingest.queueBytes, jobs: ctx.jobQueue },
      signal: ctx.signal,
    });
    if (r.status === "queued") ctx.jobs?.kick();
    return r;
  },
  summary,
});

/** Fetch a URL and ingest it. */
export const memoryIngestUrl = defineTool({
  name: "memory_ingest_url",
  title: "Ingest a web page",
  tier: "write",
  description:
    "Fetch an http(s) URL (body at most 5 MiB) and store it at /ingest/web/<host>/<path>.md: HTML as readable markdown, text, JSON and PDF as text. Private, loopback, link-local and metadata addresses are refused unless allowlisted in config (checked on every redirect).",
  input: z.object({
    url: z.url().max(8192),
    brain,
  }),
  output: (o) => z.looseObject({ path: z.literal("server"), result: ingestResponse(o) }),
  annotations: { ...ADDITIVE, openWorldHint: true },
  run: async (ctx, args) => {
    const ingest = ingestContext(ctx);
    const { ingestUrl } = await import("../../../ingest/ingest_url.ts");
    const result = await ingestUrl(ctx.service, ctx.caller, {
      url: args.url,
      brain: args.brain,
      allowHosts: ingest.allowedUrlHosts,
      timeoutMs: ingest.urlTimeoutMs,
      signal: ctx.signal,
    });
    return { path: "server" as const, result };
  },
  summary: (r) => summary(r.result),
});

/** Follow a background job. */
export const memoryJob = defineTool({
  name: "memory_job",
  title: "Background job status",
  tier: "read",
  description:
    "Status of a background job (a queued memory_ingest_file, or the fact extraction of memory_extract): queued, running, completed (with its result) or failed (with the reason). wait_ms waits up to that long for it to finish.",
  input: z.object({
    job_id: z.string().min(1).max(128),
    wait_ms: z.number().int().min(0).max(60_000).default(0),
  }),
  output: () =>
    z.looseObject({
      id: z.string(),
      kind: z.string(),
      status: z.enum(["queued", "running", "completed", "failed"]),
      attempts: z.number().int(),
      result: z.record(z.string(), z.unknown()).nullable(),
      error: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      finished_at: z.string().nullable(),
    }),
  annotations: READ_ONLY,
  run: async (ctx, args) => {
    const job = ctx.jobs
      ? await ctx.jobs.wait(args.job_id, args.wait_ms)
      : await ctx.jobQueue.getJob(args.job_id);
    if (!job) throw new EngramError("not_found", `job ${args.job_id} not found`);
    const brains = await ctx.service.listBrains(ctx.caller);
    if (!brains.some((b) => b.id === job.brain_id)) {
      throw new EngramError("not_found", `job ${args.job_id} not found`);
    }
    const { payload: _payload, brain_id: _brain, ...visible } = job;
    return visible;
  },
  summary: (j) =>
    `Job ${j.id} (${j.kind}): ${j.status}${j.error ? ` — ${j.error}` : ""}${
      j.result && typeof j.result.path === "string" ? ` — ${j.result.path}` : ""
    }`,
});

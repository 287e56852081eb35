/** @module memory_ingest_file's work: check, hash, reuse or queue or extract-and-store. */
import { EngramError } from "../core/errors.ts";
import { sha256Bytes } from "../core/hash.ts";
import { newId } from "../core/ids.ts";
import type { MemoryService } from "../core/memory_service.ts";
import type { JobQueue } from "../core/ports/job_queue.ts";
import type { CallerContext, IngestResponse } from "../core/types.ts";
import { readCheckedFile } from "./checked_read.ts";
import { checkFile, ingestPathFor } from "./file_access.ts";
import { extract, type Format, formatOf } from "./formats.ts";

/** The job kind for a queued file ingestion. */
export const INGEST_FILE_JOB = "ingest_file";

/** What a queued file ingestion carries, so a restarted process can finish it. */
export interface IngestFileJobPayload {
  real_path: string;
  format: Format;
  doc_path: string;
  document_id: string;
  hash: string;
  name: string;
  /**
   * The allowed root the file was under when queued (null: the operator's CLI, no root check);
   * the job checks it again at run time. Absent in jobs queued by older versions.
   */
  root?: string | null;
}

/** Options for one file ingestion. */
export interface IngestFileOptions {
  brain?: string;
  as?: Format;
  /** null: no root check (operator CLI). */
  roots: readonly string[] | null;
  cwd: string;
  /** Files larger than `bytes` are queued on `jobs` as a background job; without it none is. */
  queue?: { bytes: number; jobs: JobQueue };
  /** Brain path to store at (default: derived from the root and file name). */
  docPath?: string;
  /** A cancelled request (notifications/cancelled) stops before extracting and before writing. */
  signal?: AbortSignal;
}

/** Ingests one file, or queues it when it is large. */
export async function ingestFile(
  service: MemoryService,
  caller: CallerContext,
  args: { path: string } & IngestFileOptions,
): Promise<IngestResponse> {
  const started = performance.now();
  const file = await checkFile(args.path, { roots: args.roots, cwd: args.cwd });
  const format = formatOf(file.realPath, args.as);
  const docPath = args.docPath ?? ingestPathFor(file);
  const bytes = await readCheckedFile(file, args.path);
  args.signal?.throwIfAborted();
  const hash = sha256Bytes(bytes);
  const brain = await service.brain(caller, args.brain);
  // Unchanged since the last ingestion: answer without extracting (a PDF costs far more than a hash).
  const reused = await service.reused(caller, { brain: brain.id, path: docPath, sourceHash: hash });
  if (reused) return reused;
  if (args.queue && file.size > args.queue.bytes) {
    const jobs = args.queue.jobs;
    // One unit of work: the same bytes queued twice at once get one job (and its id) between them.
    return await service.atomically(async () => {
      const active = await jobs.findActiveJob(INGEST_FILE_JOB, brain.id, {
        doc_path: docPath,
        hash,
      });
      const existing = active ? null : await service.pathOwner(brain, docPath);
      const documentId = (active?.payload.document_id as string | undefined) ?? existing?.id ??
        newId("doc");
      const payload: IngestFileJobPayload = {
        real_path: file.realPath,
        format,
        doc_path: docPath,
        document_id: documentId,
        hash,
        name: args.path,
        root: file.root,
      };
      const job = active ?? await jobs.enqueueJob({
        id: newId("job"),
        kind: INGEST_FILE_JOB,
        brain_id: brain.id,
        payload: payload as unknown as Record<string, unknown>,
      });
      return {
        status: "queued",
        job_id: job.id,
        document_id: documentId,
        path: docPath,
        hash,
        chunk_count: 0,
        embedded_count: 0,
        duration_ms: Math.round(performance.now() - started),
        reused: false,
      };
    });
  }
  args.signal?.throwIfAborted();
  return await storeExtracted(service, caller, {
    bytes,
    format,
    name: args.path,
    docPath,
    hash,
    brain: brain.id,
    signal: args.signal,
  });
}

/** Runs a queued file ingestion (the job handler). The file must still be unchanged. */
export async function runIngestFileJob(
  service: MemoryService,
  caller: CallerContext,
  job: { brain_id: string; payload: IngestFileJobPayload },
): Promise<IngestResponse> {
  const p = job.payload;
  let bytes: Uint8Array;
  try {
    // Checked and read the same way as when it was queued: the file may have been swapped since.
    const file = await checkFile(p.real_path, {
      roots: typeof p.root === "string" ? [p.root] : null,
      cwd: "/",
    });
    bytes = await readCheckedFile(file, p.name);
  } catch (err) {
    if (!(err instanceof EngramError) || err.code !== "not_found") throw err;
    throw new EngramError(
      "not_found",
      `file ${p.name} disappeared before it was ingested: ${err.message}`,
    );
  }
  const hash = sha256Bytes(bytes);
  if (hash !== p.hash) {
    throw new EngramError(
      "conflict",
      `file ${p.name} changed after it was queued; ingest it again`,
    );
  }
  return await storeExtracted(service, caller, {
    bytes,
    format: p.format,
    name: p.name,
    docPath: p.doc_path,
    hash,
    brain: job.brain_id,
    id: p.document_id,
  });
}

async function storeExtracted(
  service: MemoryService,
  caller: CallerContext,
  o: {
    bytes: Uint8Array;
    format: Format;
    name: string;
    docPath: string;
    hash: string;
    brain: string;
    id?: string;
    signal?: AbortSignal;
  },
): Promise<IngestResponse> {
  const extracted = await extract(o.bytes, { name: o.name, format: o.format });
  // Extraction (a PDF) can take a while: a request cancelled meanwhile stores nothing.
  o.signal?.throwIfAborted();
  return await service.ingest(caller, {
    brain: o.brain,
    path: o.docPath,
    content: extracted.content,
    title: extracted.title,
    tags: extracted.tags,
    metadata: { ...extracted.metadata, source_file: o.name },
    sourceHash: o.hash,
    contentType: extracted.contentType,
    id: o.id,
    warnings: extracted.warnings,
  });
}

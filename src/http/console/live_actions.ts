/**
 * @module The console's live work: Ask with the answer streamed as server-sent events (each
 * citation a link to the passage it quotes), uploads ingested as background jobs, and the events
 * stream (`/console/events`) that follows those jobs to the end (docs/console.md#ask and
 * docs/console.md#ingest).
 */
import type { AskResult } from "../../core/answering/ask.ts";
import { EngramError, toEngramError } from "../../core/errors.ts";
import { concealInternal } from "../../core/internal_errors.ts";
import { LIMITS } from "../../core/limits.ts";
import type { Logger } from "../../core/logger.ts";
import type { Brain, IngestResponse, JobRecord } from "../../core/types.ts";
import { SSE_HEADERS, SseWriter } from "../sse_writer.ts";
import type { ConsoleActor } from "./console_actor.ts";
import type { ConsoleParts } from "./console_deps.ts";
import { securityHeaders } from "./console_http.ts";
import { docUrl } from "./pages_memory.ts";

/** One server-sent event of the console: a name and JSON data. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** An SSE response around `sse`. */
export function sseResponse(sse: SseWriter): Response {
  return new Response(sse.body, { headers: securityHeaders({ ...SSE_HEADERS }) });
}

/** A citation as the page shows it: the document's title, the quote, and a link to the passage. */
export interface CitationLink {
  document_id: string;
  title: string;
  quote: string;
  href: string;
}

/**
 * A link to the passage a quote comes from: the document page with a text fragment
 * (`#:~:text=`), which browsers that support it scroll to and highlight.
 */
export function passageHref(url: string, quote: string): string {
  const words = quote.replace(/\s+/g, " ").trim().split(" ");
  const part = (w: string[]) =>
    encodeURIComponent(w.join(" ")).replace(/-/g, "%2D").replace(/,/g, "%2C");
  const fragment = words.length <= 8
    ? part(words)
    : `${part(words.slice(0, 4))},${part(words.slice(-4))}`;
  return `${url}#:~:text=${fragment}`;
}

/**
 * Answers a question as an SSE stream: `delta` events as the answer is written, then `done` with
 * the answer, `grounded` (strict mode) and the citations as links; `error` if it fails. A reader
 * that goes away cancels the question.
 */
export function askStream(
  actor: ConsoleActor,
  brain: Brain,
  o: { question: string; strict: boolean; logger: Logger },
): Response {
  const cancel = new AbortController();
  const sse = new SseWriter({ onCancel: () => cancel.abort() });
  const asking = actor.withSignal(cancel.signal);
  void (async () => {
    try {
      const r = await asking.tool<AskResult>("memory_ask", {
        query: o.question,
        brain: brain.id,
        strict: o.strict,
      }, {
        progress: (delta) => {
          sse.write(sseEvent("delta", { text: delta }));
          return Promise.resolve();
        },
      });
      const titles = new Map<string, string>();
      for (const c of r.citations) {
        if (titles.has(c.document_id)) continue;
        const doc = await actor.deps.service.findLive(brain, { id: c.document_id });
        titles.set(c.document_id, doc?.title ?? c.document_id);
      }
      const citations: CitationLink[] = r.citations.map((c) => ({
        document_id: c.document_id,
        title: titles.get(c.document_id)!,
        quote: c.quote,
        href: passageHref(docUrl(brain, c.document_id), c.quote),
      }));
      sse.write(sseEvent("done", {
        answer: r.answer,
        provider: r.provider,
        ...(r.grounded !== undefined ? { grounded: r.grounded } : {}),
        citations,
      }));
    } catch (err) {
      const e = concealInternal(toEngramError(err), { logger: o.logger, what: "console ask" });
      sse.write(sseEvent("error", { code: e.code, message: e.message }));
    } finally {
      sse.close();
    }
  })();
  return sseResponse(sse);
}

/** Stores one uploaded file as a background ingest job. */
export function uploadFile(
  actor: ConsoleActor,
  brain: Brain,
  o: { parts: ConsoleParts; name: string; bytes: Uint8Array },
): Promise<IngestResponse> {
  return actor.action("console_upload", {
    tier: "write",
    args: { brain: brain.id, name: o.name, bytes: o.bytes.byteLength },
    uses: "memory_ingest_file",
  }, async () => {
    if (!o.parts.upload) {
      throw new EngramError("not_implemented", "uploads are not available on this server");
    }
    return await o.parts.upload(actor.caller, { brain: brain.id, name: o.name, bytes: o.bytes });
  }, () => brain.id);
}

/** The size an upload may have: what `engram ingest` reads, 25 MiB a file. */
export const UPLOAD_BYTES = LIMITS.ingestFileBytes;

/** A job as the events stream sends it: its state, and a link to what it stored once done. */
interface JobEvent {
  id: string;
  status: JobRecord["status"];
  error: string | null;
  result: (Record<string, unknown> & { href?: string }) | null;
}

/** Open event streams, ended when the server shuts down. */
export type OpenStreams = Set<{ close(): void }>;

/**
 * Follows jobs until each has finished: a `job` event with each one's state when the stream opens
 * and whenever it changes, then the stream ends. Jobs the token's brains do not hold are refused
 * as unknown, like memory_job.
 */
export async function jobEvents(
  actor: ConsoleActor,
  o: { ids: string[]; keepAliveMs: number; streams: OpenStreams },
): Promise<Response> {
  const d = actor.deps;
  const jobs = await actor.action("console_events", {
    tier: "read",
    args: { jobs: o.ids },
    uses: "memory_job",
  }, async () => {
    if (o.ids.length === 0 || o.ids.length > 100) {
      throw new EngramError(
        "invalid_argument",
        "name 1 to 100 jobs: /console/events?job=ID&job=ID",
      );
    }
    const brains = new Map((await d.service.listBrains(actor.caller)).map((b) => [b.id, b]));
    const found: { job: JobRecord; brain: Brain }[] = [];
    for (const id of o.ids) {
      const job = await d.jobQueue.getJob(id);
      const brain = job && brains.get(job.brain_id);
      if (!job || !brain) throw new EngramError("not_found", `job ${id} not found`);
      found.push({ job, brain });
    }
    return found;
  });
  const sse = new SseWriter({ onCancel: () => o.streams.delete(sse) });
  o.streams.add(sse);
  const event = (job: JobRecord, brain: Brain): JobEvent => {
    const documentId = job.result?.document_id;
    return {
      id: job.id,
      status: job.status,
      error: job.error,
      result: job.result
        ? {
          ...job.result,
          ...(typeof documentId === "string" ? { href: docUrl(brain, documentId) } : {}),
        }
        : null,
    };
  };
  void (async () => {
    const keepAlive = setInterval(() => sse.keepAlive(o.keepAliveMs, Date.now()), o.keepAliveMs);
    try {
      await Promise.all(jobs.map(async ({ job, brain }) => {
        let last = "";
        let now: JobRecord | null = job;
        while (now && !sse.closed) {
          const e = event(now, brain);
          const said = JSON.stringify(e);
          if (said !== last) sse.write(sseEvent("job", e));
          last = said;
          if (now.status === "completed" || now.status === "failed") return;
          // Wakes as soon as the job finishes here; the timeout shows queued → running.
          now = d.jobs ? await d.jobs.wait(job.id, 500) : await d.jobQueue.getJob(job.id);
          if (!d.jobs) await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }));
      sse.write(sseEvent("end", {}));
    } finally {
      clearInterval(keepAlive);
      o.streams.delete(sse);
      sse.close();
    }
  })();
  return sseResponse(sse);
}

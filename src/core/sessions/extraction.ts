/**
 * @module memory_extract: appending to a session or storing a transcript, and the durable
 * extraction job that turns new messages into facts.
 */
import { EngramError } from "../errors.ts";
import { type ExtractionReport, keepFacts } from "./facts.ts";
import { newId } from "../ids.ts";
import type { MemoryService } from "../memory_service.ts";
import type { JobQueue } from "../ports/job_queue.ts";
import type { MemoryModel } from "../ports/language_model.ts";
import type { SessionStore } from "../ports/session_store.ts";
import type { ExtractArgs } from "./session_schemas.ts";
import { appendConversation, openSession, toConversation, toMessageRecord } from "./sessions.ts";
import type {
  Brain,
  CallerContext,
  DocumentRecord,
  JobRecord,
  SessionMessageRecord,
} from "../types.ts";

/** The job kind of fact extraction. */
export const EXTRACT_JOB = "extract";

/** What an extraction job carries. */
export interface ExtractJobPayload {
  session_id: string;
  scope: "global" | "project" | "agent";
}

/** memory_extract's result: the appended messages, or the transcript document; plus the job. */
export type ExtractResult =
  & (
    | { mode: "session"; messages: SessionMessageRecord[] }
    | { mode: "transcript"; document: DocumentRecord }
  )
  & { brain_id: string; session_id: string; job_id: string };

/** What extraction works with: the service, the session store and the job queue. */
export interface ExtractionPorts {
  service: MemoryService;
  sessions: SessionStore;
  jobs: JobQueue;
}

/**
 * Appends to a session (or stores a transcript) and queues extraction of the new messages, as one
 * unit of work: the messages, the transcript and the job are stored together or not at all.
 */
export async function extract(
  deps: ExtractionPorts,
  caller: CallerContext,
  args: ExtractArgs,
): Promise<ExtractResult> {
  const brain = await deps.service.brain(caller, args.brain);
  return await deps.service.atomically(() =>
    args.session_id !== undefined
      ? appendToSession(deps, caller, { args, brain, sessionId: args.session_id })
      : storeTranscript(deps, caller, { args, brain })
  );
}

async function appendToSession(
  deps: ExtractionPorts,
  caller: CallerContext,
  o: { args: ExtractArgs; brain: Brain; sessionId: string },
): Promise<ExtractResult> {
  const { args, brain } = o;
  const session = await openSession(deps.sessions, brain, {
    sessionId: o.sessionId,
    caller,
    actorId: args.actor_id,
    metadata: { scope: args.scope },
  });
  const stored = await appendConversation(deps.sessions, session, {
    messages: args.messages,
    actorId: args.actor_id,
  });
  const job = await queueExtraction(deps.jobs, {
    brainId: brain.id,
    sessionId: session.id,
    scope: args.scope,
  });
  return {
    mode: "session",
    messages: stored.map(toMessageRecord),
    brain_id: brain.id,
    session_id: session.id,
    job_id: job.id,
  };
}

/**
 * A transcript is a finished conversation: its messages go into a closed session of their own, so
 * extraction reads them the same way, and the document is what a person reads.
 */
async function storeTranscript(
  deps: ExtractionPorts,
  caller: CallerContext,
  o: { args: ExtractArgs; brain: Brain },
): Promise<ExtractResult> {
  const { args, brain } = o;
  const now = new Date().toISOString();
  const sessionId = newId("ses");
  const session = await deps.sessions.createSession({
    id: sessionId,
    brain_id: brain.id,
    client_id: caller.clientId,
    actor_id: args.actor_id ?? null,
    started_at: now,
    ended_at: null,
    metadata: { transcript: true },
  });
  await appendConversation(deps.sessions, session, {
    messages: args.messages,
    actorId: args.actor_id,
  });
  const title = `Transcript ${now.slice(0, 16).replace("T", " ")}`;
  const document = await deps.service.remember(caller, {
    brain: brain.id,
    path: `/transcripts/${now.slice(0, 10)}-${sessionId.slice(4).toLowerCase()}.md`,
    title,
    content: `# ${title}\n\n${
      args.messages.map((m) => `**${m.name ?? m.role}:** ${m.content.trim()}`).join("\n\n")
    }\n`,
    metadata: {
      kind: "transcript",
      session_id: sessionId,
      ...(args.actor_id !== undefined ? { actor_id: args.actor_id } : {}),
    },
  }, { source: "ingest" });
  await deps.sessions.updateSession(sessionId, {
    ended_at: now,
    metadata: { transcript: true, document_id: document.id },
  });
  const job = await queueExtraction(deps.jobs, {
    brainId: brain.id,
    sessionId,
    scope: args.scope,
  });
  return {
    mode: "transcript",
    document,
    brain_id: brain.id,
    session_id: sessionId,
    job_id: job.id,
  };
}

/** Queues extraction for a session, unless one is already waiting (it will see these messages too). */
export async function queueExtraction(
  jobs: JobQueue,
  o: { brainId: string; sessionId: string; scope: ExtractJobPayload["scope"] },
): Promise<JobRecord> {
  const waiting = await jobs.findActiveJob(EXTRACT_JOB, o.brainId, {
    session_id: o.sessionId,
    scope: o.scope,
  });
  if (waiting && waiting.status === "queued") return waiting;
  const payload: ExtractJobPayload = { session_id: o.sessionId, scope: o.scope };
  return await jobs.enqueueJob({
    id: newId("job"),
    kind: EXTRACT_JOB,
    brain_id: o.brainId,
    payload: { ...payload },
  });
}

/** The result stored on a finished extraction job. */
export interface ExtractionRun extends ExtractionReport {
  session_id: string;
  messages: number;
  provider: string | null;
}

/**
 * Runs one extraction job: the session's messages not yet extracted become facts, and the
 * session remembers how far it got — the facts and that mark in one unit of work, so a crash
 * never stores facts that the next run would store again. A model failure throws (the job is
 * retried, then reported failed); the messages stay, and the next run picks them up.
 */
export async function runExtraction(
  deps: { service: MemoryService; sessions: SessionStore; model: MemoryModel },
  caller: CallerContext,
  job: { brain_id: string; payload: ExtractJobPayload },
): Promise<ExtractionRun> {
  const { service, model } = deps;
  const store = deps.sessions;
  const session = await store.getSession(job.payload.session_id);
  if (!session) {
    throw new EngramError("not_found", `session "${job.payload.session_id}" no longer exists`);
  }
  const from = Number(session.metadata.extracted_seq ?? 0);
  const messages = await store.listMessages(session.id, { afterSeq: from });
  const empty: ExtractionRun = {
    inserted: 0,
    duplicate: 0,
    superseded: 0,
    fact_ids: [],
    duplicate_ids: [],
    superseded_ids: [],
    session_id: session.id,
    messages: 0,
    provider: null,
  };
  if (messages.length === 0) return empty;
  const brain = await service.brain(caller, job.brain_id);
  const found = await model.extractFacts(toConversation(messages));
  const report = await service.atomically(async () => {
    const report = await keepFacts(service, found.facts, {
      caller,
      brain,
      scope: job.payload.scope,
      sessionId: session.id,
      provider: found.provider,
    });
    const latest = (await store.getSession(session.id)) ?? session;
    await store.updateSession(session.id, {
      metadata: {
        ...latest.metadata,
        extracted_seq: messages[messages.length - 1].seq,
        last_extraction: { ...report, provider: found.provider, at: new Date().toISOString() },
      },
    });
    return report;
  });
  return { ...report, session_id: session.id, messages: messages.length, provider: found.provider };
}

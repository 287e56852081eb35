/**
 * @module memory_reflect: closing a session with a reflection, and recording an episode document
 * when the session was worth remembering. Reflecting twice returns the first reflection.
 */
import { queueExtraction } from "./extraction.ts";
import type { MemoryService } from "../memory_service.ts";
import type { JobQueue } from "../ports/job_queue.ts";
import type { MemoryModel, Outcome } from "../ports/language_model.ts";
import type { SessionStore } from "../ports/session_store.ts";
import type { ReflectArgs } from "./session_schemas.ts";
import { requireSession, toConversation } from "./sessions.ts";
import type { CallerContext } from "../types.ts";

/** Where episodes are recorded. */
export const EPISODES_PREFIX = "/memory/agent/episodes/";

/** Messages a reflection reads at most (the most recent ones). */
const REFLECT_MESSAGES = 200;

/** The reflection on a session (docs/tools.md#memory_reflect). */
export interface Reflection {
  outcome: Outcome;
  should_record_episode: boolean;
  /** The episode document's path; null when no episode was recorded. */
  path: string | null;
  retry_feedback?: string;
  summary: string;
  lessons: string[];
  provider: string;
}

/** memory_reflect's result. */
export interface ReflectResult {
  reflection_status: "completed" | "no_result";
  reflection?: Reflection;
  reflection_attempted: boolean;
  ended_at?: string;
  session_id: string;
  brain_id: string;
  episode_id?: string;
  /** Extraction queued for messages not yet extracted. */
  extraction_job_id?: string;
}

/**
 * Closes a session with a reflection (idempotent). The model is asked first; the episode, the
 * extraction job and the closed session are then stored as one unit of work.
 */
export async function reflect(
  deps: { service: MemoryService; sessions: SessionStore; jobs: JobQueue; model: MemoryModel },
  caller: CallerContext,
  args: ReflectArgs,
): Promise<ReflectResult> {
  const { service, model } = deps;
  const store = deps.sessions;
  const brain = await service.brain(caller, args.brain);
  const session = await requireSession(store, brain, args.session_id);
  const base = { session_id: session.id, brain_id: brain.id };
  const done = session.metadata.reflection_status as ReflectResult["reflection_status"] | undefined;
  if (done) {
    return {
      ...base,
      reflection_status: done,
      ...(session.metadata.reflection
        ? { reflection: session.metadata.reflection as Reflection }
        : {}),
      reflection_attempted: false,
      ...(session.ended_at ? { ended_at: session.ended_at } : {}),
      ...(session.metadata.episode_id ? { episode_id: String(session.metadata.episode_id) } : {}),
    };
  }
  const messages = await store.listMessages(session.id, { last: REFLECT_MESSAGES });
  const endedAt = session.ended_at ?? new Date().toISOString();
  if (messages.length === 0) {
    await store.updateSession(session.id, {
      ended_at: endedAt,
      metadata: { ...session.metadata, reflection_status: "no_result" },
    });
    return {
      ...base,
      reflection_status: "no_result",
      reflection_attempted: true,
      ended_at: endedAt,
    };
  }
  const draft = await model.reflect(toConversation(messages));
  const path = `${EPISODES_PREFIX}${endedAt.slice(0, 10)}-${
    session.id.toLowerCase().replace(/[^a-z0-9-]+/g, "-").slice(0, 60)
  }.md`;
  const reflection: Reflection = {
    outcome: draft.outcome,
    should_record_episode: draft.should_record_episode,
    path: draft.should_record_episode ? path : null,
    ...(draft.retry_feedback ? { retry_feedback: draft.retry_feedback } : {}),
    summary: draft.summary,
    lessons: draft.lessons,
    provider: draft.provider,
  };
  const { episodeId, job } = await service.atomically(async () => {
    const episode = draft.should_record_episode
      ? await service.remember(caller, {
        brain: brain.id,
        path,
        title: `Episode ${endedAt.slice(0, 10)}: ${draft.outcome}`,
        content: episodeContent(draft, {
          sessionId: session.id,
          endedAt,
          messages: messages.length,
        }),
        tags: ["episode", draft.outcome],
        metadata: { kind: "episode", session_id: session.id, outcome: draft.outcome },
      }, { source: "reflect" })
      : undefined;
    // Messages appended with skip_extract and never followed by a triggering message are extracted now.
    const extracted = Number(session.metadata.extracted_seq ?? 0);
    const pending = messages[messages.length - 1].seq > extracted;
    const job = pending
      ? await queueExtraction(deps.jobs, {
        brainId: brain.id,
        sessionId: session.id,
        scope: (session.metadata.scope as "global" | "project" | "agent" | undefined) ?? "global",
      })
      : undefined;
    const latest = (await store.getSession(session.id)) ?? session;
    await store.updateSession(session.id, {
      ended_at: endedAt,
      metadata: {
        ...latest.metadata,
        reflection_status: "completed",
        reflection,
        ...(episode ? { episode_id: episode.id } : {}),
      },
    });
    return { episodeId: episode?.id, job };
  });
  return {
    ...base,
    reflection_status: "completed",
    reflection,
    reflection_attempted: true,
    ended_at: endedAt,
    ...(episodeId ? { episode_id: episodeId } : {}),
    ...(job ? { extraction_job_id: job.id } : {}),
  };
}

function episodeContent(
  draft: { outcome: Outcome; summary: string; lessons: string[]; retry_feedback?: string },
  o: { sessionId: string; endedAt: string; messages: number },
): string {
  const parts = [
    `# Episode ${o.endedAt.slice(0, 10)}: ${draft.outcome}`,
    "",
    draft.summary.trim(),
    "",
    `- session: ${o.sessionId}`,
    `- outcome: ${draft.outcome}`,
    `- messages: ${o.messages}`,
    `- ended: ${o.endedAt}`,
  ];
  if (draft.lessons.length) parts.push("", "## Lessons", "", ...draft.lessons.map((l) => `- ${l}`));
  if (draft.retry_feedback) parts.push("", "## Next time", "", draft.retry_feedback.trim());
  return parts.join("\n") + "\n";
}

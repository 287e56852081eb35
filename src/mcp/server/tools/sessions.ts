/** @module memory_extract and memory_reflect: handing over conversations and closing sessions. */
import type { ExtractResult } from "../../../core/sessions/extraction.ts";
import type { ReflectResult } from "../../../core/sessions/reflect.ts";
import { ExtractInput, ReflectInput } from "../../../core/sessions/session_schemas.ts";
import { ADDITIVE, defineTool } from "../tool.ts";

/** Appending messages is not idempotent: the same call twice stores them twice. */
const WRITES = { ...ADDITIVE, idempotentHint: false };

/** Hand over a conversation for fact extraction. */
export const memoryExtract = defineTool({
  name: "memory_extract",
  title: "Extract facts from a conversation",
  tier: "write",
  description:
    "Hand over conversation messages: durable facts (preferences, decisions, names, tools, rules, deadlines) are extracted into /memory/<scope>/facts/ in the background (follow with memory_job). With session_id the messages join that session and the last one triggers extraction; without, a transcript is stored under /transcripts/. Duplicates fold into the existing fact; a contradicting fact supersedes it. Close a session with memory_reflect.",
  input: ExtractInput,
  output: (o) => o.ExtractOutputSchema,
  annotations: WRITES,
  run: async (ctx, args) => {
    const { extract } = await import("../../../core/sessions/extraction.ts");
    const result = await extract(
      { service: ctx.service, sessions: ctx.sessions, jobs: ctx.jobQueue },
      ctx.caller,
      args,
    );
    ctx.jobs?.kick();
    return result;
  },
  summary: (r: ExtractResult) =>
    r.mode === "session"
      ? `Appended ${r.messages.length} message(s) to session ${r.session_id}; extraction queued as job ${r.job_id}`
      : `Stored transcript ${r.document.path} (document ${r.document.id}); extraction queued as job ${r.job_id}`,
  brainOf: (r: ExtractResult) => r.brain_id,
});

/** Close a session and reflect on it. */
export const memoryReflect = defineTool({
  name: "memory_reflect",
  title: "Close and reflect on a session",
  tier: "write",
  description:
    "Close a session and reflect on it: outcome (success, partial, failure, unknown), summary, lessons and, after a failure, feedback for the next attempt. A session worth remembering becomes an episode under /memory/agent/episodes/; messages not yet extracted are extracted. Reflecting again returns the same reflection.",
  input: ReflectInput,
  output: (o) => o.ReflectOutputSchema,
  annotations: ADDITIVE,
  run: async (ctx, args) => {
    const { reflect } = await import("../../../core/sessions/reflect.ts");
    const result = await reflect(
      { service: ctx.service, sessions: ctx.sessions, jobs: ctx.jobQueue, model: ctx.model },
      ctx.caller,
      args,
    );
    if (result.extraction_job_id) ctx.jobs?.kick();
    return result;
  },
  summary: (r: ReflectResult) => {
    if (!r.reflection) {
      return `Session ${r.session_id} closed with no reflection (${r.reflection_status}: no messages); ended at ${
        r.ended_at ?? "?"
      }`;
    }
    const x = r.reflection;
    return [
      `outcome: ${x.outcome}`,
      `record episode: ${x.should_record_episode ? "yes" : "no"}`,
      `path: ${x.path ?? "(none)"}`,
      `ended at: ${r.ended_at ?? "?"}`,
      ...(x.retry_feedback ? [`retry feedback: ${x.retry_feedback}`] : []),
      ...(r.reflection_attempted ? [] : ["(already reflected; returning the earlier reflection)"]),
    ].join("\n");
  },
  brainOf: (r: ReflectResult) => r.brain_id,
});

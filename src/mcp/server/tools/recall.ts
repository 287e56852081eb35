/** @module memory_recall and memory_ask: retrieval shaped by a session, and cited answers. */
import type { AskResult } from "../../../core/answering/ask.ts";
import type { SearchResult } from "../../../core/memory_service.ts";
import type { RecallResult } from "../../../core/sessions/recall.ts";
import { AskInput, RecallInput } from "../../../core/sessions/session_schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { searchSummary } from "./search.ts";

/** Recall for a query, weighted by a session. */
export const memoryRecall = defineTool({
  name: "memory_recall",
  title: "Recall for a session",
  tier: "read",
  description:
    "Recall what memory holds for a query. With session_id, documents about what the conversation is about rank first (result: { chunks }); without, the same as memory_search (result: { hits }).",
  input: RecallInput,
  output: (o) => o.RecallOutputSchema,
  annotations: READ_ONLY,
  run: async (ctx, args) => {
    const { recall } = await import("../../../core/sessions/recall.ts");
    return await recall({ service: ctx.service, sessions: ctx.sessions }, ctx.caller, args);
  },
  summary: (r: RecallResult | SearchResult) =>
    "chunks" in r
      ? searchSummary({ query: r.query, brain_id: r.brain_id, hits: r.chunks, took_ms: r.took_ms })
      : searchSummary(r),
  brainOf: (r: RecallResult | SearchResult) => r.brain_id,
});

/** A question answered from the brain, with citations; streams with a progress token. */
export const memoryAsk = defineTool({
  name: "memory_ask",
  title: "Ask memory",
  tier: "read",
  description:
    'Answer a question from the brain\'s best passages, by the configured model (else the built-in extractive engine), citing each claim with a verbatim quote. strict: true answers only what the passages state: when they do not answer it, the answer starts with "Not in memory" and grounded is false. With _meta.progressToken the answer streams as progress messages (strict: in one piece).',
  input: AskInput,
  output: (o) => o.AskOutputSchema,
  annotations: { ...READ_ONLY, idempotentHint: false },
  run: async (ctx, args) => {
    const { ask } = await import("../../../core/answering/ask.ts");
    return await ask({ service: ctx.service, model: ctx.model }, ctx.caller, args, {
      signal: ctx.signal,
      onDelta: ctx.progress,
    });
  },
  summary: (r: AskResult) => {
    const sources = r.citations.length
      ? `\n\nSources: ${[...new Set(r.citations.map((c) => c.document_id))].join(", ")}`
      : "";
    return `${r.answer}${sources}`;
  },
  brainOf: (r: AskResult) => r.brain_id,
});

/**
 * @module memory_ask: retrieve passages, have the model stack answer from them, cite the answer.
 * In strict mode the answer is grounded: only what the passages state, checked before it is sent
 * (so it streams as one piece), and "Not in memory…" with `grounded: false` when they do not
 * answer — `retrieved` then lists the closest passages instead of a guess.
 */
import { answerSources } from "./answer_sources.ts";
import { type AskCitationEvent, citeAnswer } from "./citations.ts";
import type { MemoryService } from "../memory_service.ts";
import { type AnswerSource, type MemoryModel, NOT_IN_MEMORY } from "../ports/language_model.ts";
import type { AskArgs } from "../sessions/session_schemas.ts";
import type { CallerContext } from "../types.ts";

/** RetrievedChunk (docs/tools.md#memory_ask): deliberately thinner than a search hit. */
export interface RetrievedChunk {
  chunk_id: string;
  document_id: string;
  score: number;
  preview: string;
}

/** memory_ask's result. */
export interface AskResult {
  answer: string;
  citations: AskCitationEvent[];
  retrieved: RetrievedChunk[];
  brain_id: string;
  /** Which provider wrote the answer ("extractive" when no model was used). */
  provider: string;
  /** Strict mode only: whether the retrieved text supports the answer. */
  grounded?: boolean;
}

/** Longest RetrievedChunk preview. */
const PREVIEW_CHARS = 512;

/** Answers a question from the brain; `onDelta` streams the answer as it is written. */
export async function ask(
  deps: { service: MemoryService; model: MemoryModel },
  caller: CallerContext,
  args: AskArgs,
  o: { signal?: AbortSignal; onDelta?: (delta: string) => void | Promise<void> } = {},
): Promise<AskResult> {
  const brain = await deps.service.brain(caller, args.brain);
  const hits = await deps.service.searchHits({
    brainId: brain.id,
    // The stored question can be long; retrieval only needs its words.
    text: args.query.slice(0, 4096),
    topK: args.top_k,
    scope: "all",
    sort: "relevance",
  });
  const retrieved = hits.map((h) => ({
    chunk_id: h.chunk_id,
    document_id: h.document_id,
    score: h.score,
    preview: h.content.slice(0, PREVIEW_CHARS),
  }));
  if (hits.length === 0) {
    // Nothing to answer from: say so without asking a model, which would only guess.
    const answer = args.strict
      ? `${NOT_IN_MEMORY}: nothing in brain "${brain.slug}" matches that.`
      : `I found nothing in brain "${brain.slug}" about that.`;
    await o.onDelta?.(answer);
    return {
      answer,
      citations: [],
      retrieved,
      brain_id: brain.id,
      provider: "none",
      ...(args.strict ? { grounded: false } : {}),
    };
  }
  const sources: AnswerSource[] = answerSources(hits);
  if (args.strict) {
    return await strictAnswer(deps.model, {
      question: args.query,
      sources,
      retrieved,
      brainId: brain.id,
    }, o);
  }
  const answer = await deps.model.answer({
    question: args.query,
    sources,
    signal: o.signal,
    onDelta: o.onDelta,
  });
  return {
    answer: answer.text,
    citations: citeAnswer(answer.text, sources),
    retrieved,
    brain_id: brain.id,
    provider: answer.provider,
  };
}

/**
 * A grounded answer: written without streaming, kept only when it cites passages that hold its
 * claims, else replaced by "Not in memory…" naming the closest passages; then sent as one delta.
 */
async function strictAnswer(
  model: MemoryModel,
  a: { question: string; sources: AnswerSource[]; retrieved: RetrievedChunk[]; brainId: string },
  o: { signal?: AbortSignal; onDelta?: (delta: string) => void | Promise<void> },
): Promise<AskResult> {
  const { citedClaimsHold, notInMemory } = await import("./grounding.ts");
  const written = await model.answer({
    question: a.question,
    sources: a.sources,
    strict: true,
    signal: o.signal,
  });
  const citations = citeAnswer(written.text, a.sources);
  const grounded = citedClaimsHold(written.text, { citations, sources: a.sources });
  const answer = grounded ? written.text : notInMemory(a.question, a.sources);
  await o.onDelta?.(answer);
  return {
    answer,
    citations: grounded ? citations : [],
    retrieved: a.retrieved,
    brain_id: a.brainId,
    provider: written.provider,
    grounded,
  };
}

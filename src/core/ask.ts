/** @module memory_ask: retrieve passages, have the model stack answer from them, cite the answer. */
import { type AskCitationEvent, citeAnswer } from "./citations.ts";
import type { MemoryService } from "./memory_service.ts";
import type { AnswerSource, MemoryModel } from "./ports/language_model.ts";
import type { AskArgs } from "./session_schemas.ts";
import type { CallerContext } from "./types.ts";

/** RetrievedChunk (TOOLS.md): deliberately thinner than a search hit. */
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
    const answer = `I found nothing in brain "${brain.slug}" about that.`;
    await o.onDelta?.(answer);
    return { answer, citations: [], retrieved, brain_id: brain.id, provider: "none" };
  }
  const sources: AnswerSource[] = hits.map((h, i) => ({
    n: i + 1,
    chunk_id: h.chunk_id,
    document_id: h.document_id,
    title: h.title,
    path: h.path,
    text: h.content,
  }));
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

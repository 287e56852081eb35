/** @module Retrieved chunks as a model's numbered sources: `[n]` in its answer names hit n. */
import type { AnswerSource } from "../ports/language_model.ts";
import type { SearchHit } from "../types.ts";

/** The hits as sources numbered from 1, in rank order. */
export function answerSources(hits: readonly SearchHit[]): AnswerSource[] {
  return hits.map((h, i) => ({
    n: i + 1,
    chunk_id: h.chunk_id,
    document_id: h.document_id,
    title: h.title,
    path: h.path,
    text: h.content,
  }));
}

/**
 * @module Row → hit mapping for vector search, shared by the SQLite and PostgreSQL adapters: a
 * chunk joined with its document, as both read it once the nearest chunks are known.
 */
import type { SearchHit } from "../../core/types.ts";

/** A chunk-and-document row as a vector hit of `score` (no highlights: nothing was matched). */
export function toVectorHit(r: Record<string, unknown>, score: number): SearchHit {
  return {
    score: Math.round(score * 1e6) / 1e6,
    path: r.path as string,
    content: r.body as string,
    document_id: r.document_id as string,
    chunk_id: r.chunk_id as string,
    title: r.title as string,
    brain_id: r.brain_id as string,
    metadata: JSON.parse(r.metadata as string),
    highlights: [],
    heading_path: r.headings ? (r.headings as string).split(" › ") : [],
    updated_at: r.updated_at as string,
  };
}

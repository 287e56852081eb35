/**
 * @module Search with optional vectors: when an embedder is configured, the full-text ranking and
 * the vector ranking are fused with reciprocal rank fusion; without one, full-text search as is.
 * Grouped by document (the default), each document is then represented by its best chunk.
 */
import type { Logger } from "../logger.ts";
import type { Embedder } from "../ports/language_model.ts";
import { fuseRanks } from "./rrf.ts";
import type { SearchIndex } from "../ports/search_index.ts";
import type { VectorIndex } from "../ports/vector_index.ts";
import { collapseByDocument } from "./search_collapse.ts";
import type { GroupedSearchQuery, SearchHit, SearchQuery } from "../types.ts";

/** Each list contributes this many candidates per requested hit before fusion. */
const CANDIDATES_PER_HIT = 3;
/** Chunks first asked of the index per document wanted, so that enough distinct documents remain. */
const CHUNKS_PER_DOCUMENT = 2;
/** The most chunks asked of the fused ranking (each list) for one search. */
const MAX_GROUPED_CHUNKS = 300;
/**
 * The most chunks asked of the index while filling a grouped search: long notes hold many matching
 * chunks, so the first ask may give fewer documents than wanted and is widened up to this.
 */
const MAX_REFILL_CHUNKS = 3200;

/** Ranked hits for a query (per document unless `group` is `chunk`), fused with vector neighbours when `embedder` is set. */
export async function hybridSearch(
  index: { search: SearchIndex; vectors: VectorIndex },
  request: GroupedSearchQuery,
  o: { embedder?: Embedder; logger: Logger },
): Promise<SearchHit[]> {
  const { group = "document", ...query } = request;
  const embedding = o.embedder
    ? { model: o.embedder.model, vector: queryVector(query.text, { ...o, embedder: o.embedder }) }
    : undefined;
  if (group === "chunk") return await chunkSearch(index, query, embedding);
  let asked = Math.min(MAX_GROUPED_CHUNKS, query.topK * CHUNKS_PER_DOCUMENT);
  for (;;) {
    const chunks = await chunkSearch(index, { ...query, topK: asked }, embedding);
    const hits = collapseByDocument(chunks, query.topK);
    // Fewer chunks than asked means the index has no more; otherwise widen until filled.
    if (hits.length >= query.topK || chunks.length < asked || asked >= MAX_REFILL_CHUNKS) {
      return hits;
    }
    asked = Math.min(MAX_REFILL_CHUNKS, asked * 4);
  }
}

/**
 * The query's embedding, asked of the embedder at most once however often a grouped search
 * widens (each ask is a model call); null when embedding failed, which is logged once.
 */
function queryVector(
  text: string,
  o: { embedder: Embedder; logger: Logger },
): () => Promise<Float32Array | null> {
  let pending: Promise<Float32Array | null> | undefined;
  const embed = async (): Promise<Float32Array | null> => {
    try {
      return (await o.embedder.embed([text]))[0];
    } catch (err) {
      // Search must keep working when the embedding server is down; it just loses the vectors.
      o.logger.warn("query embedding failed; full-text ranking only", {
        provider: o.embedder.name,
        error: String(err),
      });
      return null;
    }
  };
  return () => pending ??= embed();
}

/** Ranked chunks: full text, fused with the vector ranking when the query has an embedding. */
async function chunkSearch(
  index: { search: SearchIndex; vectors: VectorIndex },
  query: SearchQuery,
  embedding?: { model: string; vector: () => Promise<Float32Array | null> },
): Promise<SearchHit[]> {
  if (!embedding || query.sort === "recency") return await index.search.search(query);
  const depth = Math.min(MAX_GROUPED_CHUNKS, query.topK * CANDIDATES_PER_HIT);
  const textHits = await index.search.search({ ...query, topK: depth });
  const vector = await embedding.vector();
  if (!vector) return textHits.slice(0, query.topK);
  const vectorHits = await index.vectors.vectorSearch({
    brainId: query.brainId,
    vector,
    model: embedding.model,
    topK: depth,
    scope: query.scope,
  });
  const fused = fuseRanks<SearchHit>([
    { name: "bm25", items: textHits },
    { name: "vector", items: vectorHits },
  ], (h) => h.chunk_id);
  const similarity = new Map(vectorHits.map((h) => [h.chunk_id, h.score]));
  const bm25 = new Map(textHits.map((h) => [h.chunk_id, h.score]));
  let hits = fused.map(({ item, score, ranks }) => ({
    ...item,
    score: round(score),
    component_scores: {
      ...(item.component_scores ?? {}),
      ...(bm25.has(item.chunk_id) ? { bm25: bm25.get(item.chunk_id)! } : {}),
      ...(similarity.has(item.chunk_id) ? { vector: round(similarity.get(item.chunk_id)!) } : {}),
      ...(ranks.bm25 ? { bm25_rank: ranks.bm25 } : {}),
      ...(ranks.vector ? { vector_rank: ranks.vector } : {}),
      rrf: round(score),
    },
  }));
  if (query.sort === "relevance_then_recency") {
    hits = hits.sort((a, b) => b.score - a.score || b.updated_at.localeCompare(a.updated_at));
  }
  return hits.slice(0, query.topK);
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

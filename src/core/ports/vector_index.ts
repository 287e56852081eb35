/** @module The vector port: chunk embeddings per model, and nearest-neighbour search over them. */
import type { Scope } from "../limits.ts";
import type { SearchHit } from "../types.ts";

/** A nearest-neighbour query. */
export interface VectorQuery {
  brainId: string;
  vector: Float32Array;
  model: string;
  topK: number;
  scope: Scope;
}

/** Chunk vectors, for hybrid search when an embedding provider is configured. */
export interface VectorIndex {
  /** A document's current chunks (id and text), in order, for embedding. */
  chunksOf(documentId: string): Promise<{ id: string; text: string }[]>;
  /** Live chunks of a brain that have no vector for `model` yet, up to `limit`. */
  chunksWithoutVectors(
    brainId: string,
    options: { model: string; limit: number },
  ): Promise<{ id: string; text: string }[]>;
  /** Stores (replaces) chunk vectors for `model`. */
  putVectors(model: string, rows: { chunk_id: string; vector: Float32Array }[]): Promise<void>;
  /**
   * The `topK` live chunks nearest to `vector` by cosine similarity (score = similarity), among
   * vectors of `model`, within the scope. Hits have no highlights.
   */
  vectorSearch(query: VectorQuery): Promise<SearchHit[]>;
}

/** @module Optional vectors: embedding a document's chunks after a write, and backfilling a brain. */
import type { Logger } from "../logger.ts";
import type { Embedder } from "../ports/language_model.ts";
import type { VectorIndex } from "../ports/vector_index.ts";

/** Chunks embedded per request while backfilling. */
const BACKFILL_BATCH = 64;

/**
 * Embeds a document's current chunks; returns how many got a vector. A failing embedding server
 * does not fail the write: the document is stored and searchable by text, and `memory_reindex`
 * embeds what is missing later.
 */
export async function embedDocument(
  index: VectorIndex,
  documentId: string,
  o: { embedder?: Embedder; logger: Logger },
): Promise<number> {
  if (!o.embedder) return 0;
  const chunks = await index.chunksOf(documentId);
  if (chunks.length === 0) return 0;
  try {
    const vectors = await o.embedder.embed(chunks.map((c) => c.text));
    await index.putVectors(
      o.embedder.model,
      chunks.map((c, i) => ({ chunk_id: c.id, vector: vectors[i] })),
    );
    return chunks.length;
  } catch (err) {
    o.logger.warn("embedding failed; the document is searchable by text only until reindexed", {
      provider: o.embedder.name,
      document_id: documentId,
      error: String(err),
    });
    return 0;
  }
}

/** Embeds every live chunk of a brain that has no vector for the embedder's model yet. */
export async function backfillVectors(
  index: VectorIndex,
  brainId: string,
  embedder: Embedder,
): Promise<number> {
  let total = 0;
  for (;;) {
    const chunks = await index.chunksWithoutVectors(brainId, {
      model: embedder.model,
      limit: BACKFILL_BATCH,
    });
    if (chunks.length === 0) return total;
    const vectors = await embedder.embed(chunks.map((c) => c.text));
    await index.putVectors(
      embedder.model,
      chunks.map((c, i) => ({ chunk_id: c.id, vector: vectors[i] })),
    );
    total += chunks.length;
  }
}

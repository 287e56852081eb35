/** @module Optional vectors: embedding a document's chunks after a write, and backfilling a brain. */
import type { Logger } from "./logger.ts";
import type { Embedder } from "./ports/language_model.ts";
import type { MemoryStore } from "./store.ts";

/** Chunks embedded per request while backfilling. */
const BACKFILL_BATCH = 64;

/**
 * Embeds a document's current chunks; returns how many got a vector. A failing embedding server
 * does not fail the write: the document is stored and searchable by text, and `memory_reindex`
 * embeds what is missing later.
 */
export async function embedDocument(
  store: MemoryStore,
  documentId: string,
  o: { embedder?: Embedder; logger: Logger },
): Promise<number> {
  if (!o.embedder) return 0;
  const chunks = await store.chunksOf(documentId);
  if (chunks.length === 0) return 0;
  try {
    const vectors = await o.embedder.embed(chunks.map((c) => c.text));
    await store.putVectors(
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
  store: MemoryStore,
  brainId: string,
  embedder: Embedder,
): Promise<number> {
  let total = 0;
  for (;;) {
    const chunks = await store.chunksWithoutVectors(brainId, {
      model: embedder.model,
      limit: BACKFILL_BATCH,
    });
    if (chunks.length === 0) return total;
    const vectors = await embedder.embed(chunks.map((c) => c.text));
    await store.putVectors(
      embedder.model,
      chunks.map((c, i) => ({ chunk_id: c.id, vector: vectors[i] })),
    );
    total += chunks.length;
  }
}

/**
 * @module Re-chunking and re-indexing a brain (memory_reindex): after a chunker change or a damaged
 * index, every live document gets its chunks and links again, and — when vectors are on — every
 * chunk missing a vector is embedded.
 */
import { backfillVectors } from "./search/embedding.ts";
import { chunkMarkdown } from "./markdown/chunker.ts";
import { parseLinks } from "./markdown/links.ts";
import type { DocumentStore } from "./ports/document_store.ts";
import type { Embedder } from "./ports/language_model.ts";
import type { SearchIndex } from "./ports/search_index.ts";
import type { UnitOfWork } from "./ports/unit_of_work.ts";
import type { VectorIndex } from "./ports/vector_index.ts";
import type { Brain } from "./types.ts";

/** What a reindex did. */
export interface ReindexReport {
  brain_id: string;
  documents: number;
  chunks: number;
  embedded: number;
  took_ms: number;
}

/** Re-chunks every live document of `brain`, then embeds what has no vector. */
export async function reindexBrain(
  ports: {
    documents: DocumentStore;
    search: SearchIndex;
    vectors: VectorIndex;
    units: UnitOfWork;
  },
  brain: Brain,
  options: { embedder?: Embedder } = {},
): Promise<ReindexReport> {
  const started = performance.now();
  let documents = 0;
  let chunks = 0;
  for await (const listed of ports.documents.liveDocuments(brain.id)) {
    // Checked and re-indexed in one unit of work: a version written or a forget made since the
    // listing must not be overwritten with the old content's chunks.
    const count = await ports.units.withTransaction(async () => {
      const now = await ports.documents.findDocument(brain.id, { id: listed.id });
      if (!now || now.deleted_at !== null) return null;
      const doc = now.version === listed.version
        ? listed
        : await ports.documents.readDocument(brain.id, { id: listed.id });
      if (!doc) return null;
      const c = chunkMarkdown(doc.content);
      await ports.search.replaceIndex(doc.id, c, parseLinks(doc.content, doc.path));
      return c.length;
    });
    if (count === null) continue;
    documents++;
    chunks += count;
  }
  // Re-chunking dropped the old vectors; embed everything missing (also after an outage).
  const embedded = options.embedder
    ? await backfillVectors(ports.vectors, brain.id, options.embedder)
    : 0;
  return {
    brain_id: brain.id,
    documents,
    chunks,
    embedded,
    took_ms: Math.round(performance.now() - started),
  };
}

/**
 * @module The full-text index port: ranked search over the chunks of live documents, and what else
 * the index knows — links between documents and tags.
 */
import type {
  Backlink,
  ChunkInput,
  DocumentRecord,
  LinkInput,
  SearchHit,
  SearchQuery,
  TagCount,
} from "../types.ts";

/** The full-text index over live documents. */
export interface SearchIndex {
  /** Ranked full-text search; user text never causes a query syntax error. */
  search(query: SearchQuery): Promise<SearchHit[]>;
  /**
   * Replaces a live document's chunks and links without creating a version (re-chunking); a
   * forgotten or missing document is left alone.
   */
  replaceIndex(documentId: string, chunks: ChunkInput[], links: LinkInput[]): Promise<void>;
  /** Number of indexed chunks of a document. */
  chunkCount(documentId: string): Promise<number>;
  /** Live documents linking to the given one. */
  backlinks(brainId: string, target: DocumentRecord): Promise<Backlink[]>;
  /** Tags of live documents with document counts, most used first. */
  tags(brainId: string): Promise<TagCount[]>;
}

/**
 * @module The documents-and-versions port: a document's current record, its versions with content,
 * and listings by path and time. Writing a version also indexes it (chunks, links, tags) in the same
 * transaction, so the index never describes content that was not stored.
 */
import type {
  BrainStats,
  ChunkInput,
  CompiledFrom,
  DocumentOrigin,
  DocumentRecord,
  DocumentWithContent,
  LinkInput,
  TimelineEntry,
} from "../types.ts";

/** Everything needed to write a new document version atomically. */
export interface VersionWrite {
  document: Omit<DocumentRecord, "version">;
  content: string;
  chunks: ChunkInput[];
  links: LinkInput[];
  /** Set when the document already exists: the version it had when read (optimistic check). */
  expectedVersion?: number;
  /**
   * Set only by the compile path: recorded as the document's provenance, with this version and
   * its content checksum. Without it, a write of source `compile` keeps the provenance the
   * document had, and a write of any other source drops it.
   */
  provenance?: CompiledFrom;
}

/** A document lookup: by id or by path. */
export type DocumentRef = { id: string; path?: undefined } | { path: string; id?: undefined };

/** Persistence of documents and their versions. */
export interface DocumentStore {
  /** A document's current state, forgotten ones included; null when there is none. */
  findDocument(brainId: string, ref: DocumentRef): Promise<DocumentRecord | null>;
  /** A document with content at the given version (current when omitted), forgotten ones included. */
  readDocument(
    brainId: string,
    ref: DocumentRef,
    version?: number,
  ): Promise<DocumentWithContent | null>;
  /**
   * Writes a new version (insert or update) with its chunks, index rows, links and tags. Throws
   * `conflict` with cause `stale-version` when the document is not at `expectedVersion` any more,
   * or when another document holds the path.
   */
  writeVersion(write: VersionWrite): Promise<DocumentRecord>;
  /** Soft-deletes a live document (`not_found` otherwise); its chunks, links and tags go. */
  markDeleted(brainId: string, documentId: string, at: string): Promise<DocumentRecord>;
  /**
   * Where each of these documents of the brain came from (source, content checksum, provenance),
   * forgotten ones included; ids that are not the brain's are left out.
   */
  origins(brainId: string, documentIds: readonly string[]): Promise<Map<string, DocumentOrigin>>;
  /** Whether any document in any brain has this id. */
  documentIdTaken(id: string): Promise<boolean>;
  /** Live documents whose path starts with `prefix`, oldest first. */
  listDocuments(brainId: string, options: { prefix: string }): Promise<DocumentRecord[]>;
  /**
   * Up to `limit` live documents whose path starts with `prefix`, in path order, after the path
   * `after` when given: a listing pages on by passing the last path it got.
   */
  documentPage(
    brainId: string,
    options: { prefix: string; after?: string; limit: number },
  ): Promise<DocumentRecord[]>;
  /** Current, live documents with content, oldest first (re-chunking, export). */
  liveDocuments(brainId: string): AsyncIterable<DocumentWithContent>;
  /** Versions written and documents forgotten, newest first, optionally only since a time. */
  timeline(brainId: string, options: { limit: number; since?: string }): Promise<TimelineEntry[]>;
  /** Counts of a brain's documents, versions, chunks, bytes and tags. */
  stats(brainId: string): Promise<BrainStats>;
  /**
   * Optional: calls `listener` soon after any process sharing the database commits a change to
   * documents (PostgreSQL's LISTEN/NOTIFY), so the change feed reads the timeline at once instead
   * of at its next poll; returns the function that stops it. A backend that cannot push (SQLite)
   * leaves it out, and the feed polls (docs/architecture.md#postgresql-notifications).
   */
  watchChanges?(listener: () => void): () => void;
}

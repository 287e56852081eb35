/**
 * @module The storage port. Core defines it; src/storage implements it for SQLite.
 * Every method is async so a networked backend (PostgreSQL) can implement the same port.
 */
import type {
  AuditEntry,
  Backlink,
  Brain,
  BrainStats,
  ChunkInput,
  DocumentRecord,
  DocumentWithContent,
  JobRecord,
  LinkInput,
  SearchHit,
  SearchQuery,
  TagCount,
  TimelineEntry,
  Visibility,
} from "./types.ts";

/** Everything needed to write a new document version atomically. */
export interface VersionWrite {
  document: Omit<DocumentRecord, "version">;
  content: string;
  chunks: ChunkInput[];
  links: LinkInput[];
  /** Set when the document already exists: the version it had when read (optimistic check). */
  expectedVersion?: number;
}

/** A document lookup: by id or by path, optionally at a version. */
export type DocumentRef = { id: string; path?: undefined } | { path: string; id?: undefined };

/** Persistence for brains, documents, chunks, search and audit. */
export interface MemoryStore {
  /** All brains, oldest first. */
  listBrains(): Promise<Brain[]>;
  /** A brain by slug or id, or null. */
  findBrain(slugOrId: string): Promise<Brain | null>;
  /** Inserts a brain; throws `conflict` when the slug is taken. */
  createBrain(
    input: { id: string; slug: string; name: string; visibility: Visibility },
  ): Promise<Brain>;

  /** A document's current state, including deleted ones. */
  findDocument(brainId: string, ref: DocumentRef): Promise<DocumentRecord | null>;
  /** A document with content at the given version (current when omitted). */
  readDocument(
    brainId: string,
    ref: DocumentRef,
    version?: number,
  ): Promise<DocumentWithContent | null>;
  /** Writes a new version (insert or update), its chunks, FTS rows and links, in one transaction. */
  writeVersion(write: VersionWrite): Promise<DocumentRecord>;
  /** Soft-deletes a document; its chunks leave the index. */
  markDeleted(brainId: string, documentId: string, at: string): Promise<DocumentRecord>;

  /** Ranked full-text search. */
  search(query: SearchQuery): Promise<SearchHit[]>;
  /** Recent changes. */
  timeline(brainId: string, options: { limit: number; since?: string }): Promise<TimelineEntry[]>;
  /** Documents linking to the given one. */
  backlinks(brainId: string, target: DocumentRecord): Promise<Backlink[]>;
  /** Tags with document counts. */
  tags(brainId: string): Promise<TagCount[]>;
  /** Brain statistics. */
  stats(brainId: string): Promise<BrainStats>;
  /** Current, live documents with content, for re-chunking. */
  liveDocuments(brainId: string): AsyncIterable<DocumentWithContent>;
  /** Replaces a document's chunks and links without creating a version. */
  replaceIndex(documentId: string, chunks: ChunkInput[], links: LinkInput[]): Promise<void>;

  /** Number of indexed chunks of a document. */
  chunkCount(documentId: string): Promise<number>;
  /** Whether any document in any brain has this id. */
  documentIdTaken(id: string): Promise<boolean>;

  /** Queues a durable job. */
  enqueueJob(
    job: { id: string; kind: string; brain_id: string; payload: Record<string, unknown> },
  ): Promise<JobRecord>;
  /**
   * Claims the oldest runnable job (queued, or running with an expired lease after a crash) for
   * `leaseMs`, counting an attempt; null when there is none.
   */
  claimJob(leaseMs: number): Promise<JobRecord | null>;
  /** Extends a running job's lease (the worker is alive). */
  renewJob(id: string, leaseMs: number): Promise<void>;
  /** Marks a job completed with its result. */
  completeJob(id: string, result: Record<string, unknown>): Promise<void>;
  /** Marks a job failed for good, or puts it back in the queue to retry. */
  failJob(id: string, error: string, options: { retry: boolean }): Promise<void>;
  /** A queued or running job of `kind` in a brain whose payload has these values, or null. */
  findActiveJob(
    kind: string,
    brainId: string,
    payload: Record<string, string>,
  ): Promise<JobRecord | null>;
  /** A job by id. */
  getJob(id: string): Promise<JobRecord | null>;

  /** Appends one audit row. */
  audit(entry: AuditEntry): Promise<void>;
  /** Releases the connection. */
  close(): void;
}

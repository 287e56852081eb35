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
  LockHolder,
  SearchHit,
  SearchQuery,
  SessionRecord,
  StoredMessage,
  TagCount,
  TimelineEntry,
  Visibility,
} from "./types.ts";
import type { Scope } from "./limits.ts";

/** Everything needed to write a new document version atomically. */
export interface VersionWrite {
  document: Omit<DocumentRecord, "version">;
  content: string;
  chunks: ChunkInput[];
  links: LinkInput[];
  /** Set when the document already exists: the version it had when read (optimistic check). */
  expectedVersion?: number;
}

/** What deleting a brain removed: its document count, and the tokens it revoked or narrowed. */
export interface BrainDeletion {
  /** Documents deleted, forgotten ones included. */
  documents: number;
  /** Live tokens scoped to this brain alone, now revoked. */
  revokedTokens: string[];
  /** Live tokens scoped to several brains, which lost this one. */
  narrowedTokens: string[];
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
  /**
   * Permanently deletes a brain and every row of it (documents, versions, chunks and their index
   * and vectors, tags, links, sessions, messages, jobs, locks) in one transaction; tokens scoped
   * to it alone are revoked at `at`, tokens scoped to several brains lose it. The audit log stays.
   */
  deleteBrain(brainId: string, options: { at: string }): Promise<BrainDeletion>;
  /** Changes a brain's name and/or slug; throws `conflict` when the slug is taken. */
  renameBrain(brainId: string, change: { name?: string; slug?: string }): Promise<Brain>;

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
  /**
   * Marks a job failed for good, or puts it back in the queue to retry — not before `delayMs`
   * from now when given (claimJob skips it until then).
   */
  failJob(id: string, error: string, options: { retry: boolean; delayMs?: number }): Promise<void>;
  /** When the earliest queued job waiting on a retry delay becomes runnable (ISO time), or null. */
  nextDelayedJobAt(): Promise<string | null>;
  /** A queued or running job of `kind` in a brain whose payload has these values, or null. */
  findActiveJob(
    kind: string,
    brainId: string,
    payload: Record<string, string>,
  ): Promise<JobRecord | null>;
  /** A job by id. */
  getJob(id: string): Promise<JobRecord | null>;

  /** Live documents whose path starts with `prefix`, oldest first (consolidation, fact lookup). */
  listDocuments(brainId: string, options: { prefix: string }): Promise<DocumentRecord[]>;
  /**
   * Up to `limit` live documents whose path starts with `prefix`, in path order, after the path
   * `after` when given: a listing pages on by passing the last path it got.
   */
  documentPage(
    brainId: string,
    options: { prefix: string; after?: string; limit: number },
  ): Promise<DocumentRecord[]>;

  /** Inserts a session; throws `conflict` when the id is taken. */
  createSession(session: SessionRecord): Promise<SessionRecord>;
  /** A session by id, or null. */
  getSession(id: string): Promise<SessionRecord | null>;
  /** Sets `ended_at` and/or replaces `metadata`. */
  updateSession(
    id: string,
    patch: { ended_at?: string; metadata?: Record<string, unknown> },
  ): Promise<SessionRecord>;
  /** Appends messages in order, in one transaction; returns them with their `seq`. */
  appendMessages(
    sessionId: string,
    messages: Omit<StoredMessage, "seq" | "session_id">[],
  ): Promise<StoredMessage[]>;
  /**
   * A session's messages in order: all of them, those after `afterSeq`, or the last `last`.
   */
  listMessages(
    sessionId: string,
    options?: { afterSeq?: number; last?: number },
  ): Promise<StoredMessage[]>;
  /** Number of messages in a session. */
  messageCount(sessionId: string): Promise<number>;

  /**
   * Takes the named lock for `ttlMs` unless someone else holds an unexpired one; returns null
   * when taken, else the current holder. Works across processes sharing the database.
   */
  acquireLock(name: string, holder: string, ttlMs: number): Promise<LockHolder | null>;
  /** Extends a held lock. */
  renewLock(name: string, holder: string, ttlMs: number): Promise<void>;
  /** Releases the lock if `holder` holds it. */
  releaseLock(name: string, holder: string): Promise<void>;

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
  vectorSearch(
    query: { brainId: string; vector: Float32Array; model: string; topK: number; scope: Scope },
  ): Promise<SearchHit[]>;

  /** Appends one audit row. */
  audit(entry: AuditEntry): Promise<void>;
  /** Releases the connection. */
  close(): void;
}

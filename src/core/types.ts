/** @module Domain records and the caller context every operation runs under. */
import type { Scope } from "./limits.ts";

/** Session tiers, lowest first. */
export type Tier = "read" | "write" | "admin";

/** All tiers in order, for validation and comparison. */
export const TIERS: readonly Tier[] = ["read", "write", "admin"];

/** Whether a session at `have` may use something that needs `need`. */
export function tierAllows(have: Tier, need: Tier): boolean {
  return TIERS.indexOf(have) >= TIERS.indexOf(need);
}

/** Brain visibility. */
export type Visibility = "private" | "tenant" | "public";

/** Metadata values allowed on documents. */
export type MetadataValue = string | number | boolean | null;

/** Document metadata (string keys 1..128). */
export type Metadata = Record<string, MetadataValue>;

/** Where a document came from. */
export type DocumentSource = "ingest" | "extract" | "compile" | "reflect";

/**
 * What the compiler records of the upstream resource a document was compiled from
 * (docs/tools.md#result-records): never taken from tool arguments or metadata.
 */
export interface CompiledFrom {
  /** The upstream server's name. */
  server: string;
  uri: string;
  /** The MIME type the server sent, if any. */
  mime_type: string | null;
  fetched_at: string;
  /** SHA-256 of the bytes fetched (of the PDF for a PDF, not of the text extracted). */
  sha256: string;
  /** The server's identity pin when it was read. */
  approval: string | null;
}

/** A compiled document's provenance as stored: the version the compile wrote and its content digest. */
export interface StoredProvenance extends CompiledFrom {
  version: number;
  /** checksum_sha256 of the content that version held: a later edit shows as a different one. */
  content_sha256: string;
}

/** Provenance as on the wire (docs/tools.md#result-records). */
export interface Provenance extends CompiledFrom {
  /** The version the last compile wrote. */
  version: number;
  /** The content returned is not the text that compile stored: someone wrote to it since. */
  edited: boolean;
}

/** Where a document came from: its source, its current content digest, and its provenance. */
export interface DocumentOrigin {
  source: DocumentSource;
  checksum_sha256: string;
  /** Null unless a compile recorded it (and no write of another source replaced it since). */
  provenance: StoredProvenance | null;
}

/** An isolated knowledge base. */
export interface Brain {
  id: string;
  slug: string;
  name: string;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
}

/** DocumentRecord as on the wire (docs/tools.md#result-records). */
export interface DocumentRecord {
  id: string;
  brain_id: string;
  title: string;
  path: string;
  source: DocumentSource;
  content_type: string;
  byte_size: number;
  checksum_sha256: string;
  metadata: Metadata;
  commit_sha: string;
  version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** A document with its content at one version. */
export interface DocumentWithContent extends DocumentRecord {
  content: string;
}

/** A document with its content and provenance, as memory_get returns it. */
export interface DocumentWithProvenance extends DocumentWithContent {
  provenance: Provenance | null;
}

/** A chunk ready for indexing. */
export interface ChunkInput {
  ordinal: number;
  heading_path: string[];
  body: string;
  start_offset: number;
  end_offset: number;
}

/** A link found in a document, before resolution. */
export interface LinkInput {
  kind: "wiki" | "markdown";
  /** Resolved absolute path for markdown links, else null. */
  target_path: string | null;
  /** Lowercased wiki target (title or file name without extension), else null. */
  target_key: string | null;
  text: string;
}

/** One search hit (docs/tools.md#memory_search). */
export interface SearchHit {
  score: number;
  path: string;
  content: string;
  document_id: string;
  chunk_id: string;
  title: string;
  brain_id: string;
  metadata: Metadata;
  highlights: string[];
  heading_path: string[];
  updated_at: string;
  component_scores?: Record<string, number>;
  /** With results grouped by document: how many more chunks of this document matched. */
  more_chunks?: number;
}

/** A search hit as the memory service returns it: with where its document came from. */
export interface SourcedHit extends SearchHit {
  source: DocumentSource;
  provenance: Provenance | null;
}

/** Search ordering. */
export type SearchSort = "relevance" | "recency" | "relevance_then_recency";

/** Search results per document (its best chunk, with `more_chunks`) or per chunk. */
export type SearchGroup = "document" | "chunk";

/** A search request after validation; what a full-text index is asked (ranked chunks). */
export interface SearchQuery {
  brainId: string;
  text: string;
  topK: number;
  scope: Scope;
  sort: SearchSort;
}

/** A search as the service runs it: a SearchQuery whose `topK` counts documents or chunks. */
export interface GroupedSearchQuery extends SearchQuery {
  /** Default `document`. */
  group?: SearchGroup;
}

/** One entry in a brain's timeline. */
export interface TimelineEntry {
  document_id: string;
  path: string;
  title: string;
  version: number;
  commit_sha: string;
  action: "created" | "updated" | "deleted";
  at: string;
}

/** A document that links to another. */
export interface Backlink {
  document_id: string;
  path: string;
  title: string;
  kind: "wiki" | "markdown";
  text: string;
}

/** Tag usage count. */
export interface TagCount {
  tag: string;
  count: number;
}

/** Brain statistics. */
export interface BrainStats {
  brain_id: string;
  documents: number;
  deleted_documents: number;
  versions: number;
  chunks: number;
  bytes: number;
  tags: number;
  last_updated_at: string | null;
}

/** Who is calling, at which tier, over what, and which brains they may touch. */
export interface CallerContext {
  clientId: string;
  transport: "stdio" | "http" | "sse" | "cli";
  tier: Tier;
  /** Brain slugs or ids this caller may touch; `"*"` for all. */
  brains: readonly string[] | "*";
  sessionId?: string;
}

/** One audit row. */
export interface AuditEntry {
  client_id: string;
  transport: string;
  session_id: string | null;
  tier: Tier;
  kind: "tool" | "prompt" | "resource";
  name: string;
  brain_id: string | null;
  args_digest: string;
  outcome: "ok" | "error";
  error_code: string | null;
  latency_ms: number;
}

/** IngestResponse (docs/tools.md#memory_ingest_file). */
export interface IngestResponse {
  status?: "completed" | "queued";
  job_id?: string;
  document_id: string;
  path: string;
  hash: string;
  chunk_count: number;
  embedded_count: number;
  duration_ms: number;
  reused: boolean;
  /** What reading the file could not take as written; present only when there is some. */
  warnings?: InputWarning[];
}

/**
 * Something in a note engram read differently from how it was written and stored anyway
 * (docs/tools.md#result-records): the line (1-based, in the text as given) and what was kept.
 */
export interface InputWarning {
  line: number;
  message: string;
}

/** A DocumentRecord as a write returns it: with its input's warnings, when there are some. */
export type WrittenRecord = DocumentRecord & { warnings?: InputWarning[] };

/** Background job states. */
export type JobStatus = "queued" | "running" | "completed" | "failed";

/** A durable background job. */
export interface JobRecord {
  id: string;
  kind: string;
  brain_id: string;
  status: JobStatus;
  payload: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A conversation session (memory_extract / memory_recall / memory_reflect). */
export interface SessionRecord {
  id: string;
  brain_id: string;
  client_id: string | null;
  actor_id: string | null;
  started_at: string;
  /** Set when memory_reflect closed the session. */
  ended_at: string | null;
  /** Engram's bookkeeping: `extracted_seq`, `reflection`, ... */
  metadata: Record<string, unknown>;
}

/** SessionMessageRecord as on the wire (docs/tools.md#memory_extract): the create-time metadata is not echoed. */
export interface SessionMessageRecord {
  id: string;
  session_id: string;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  name?: string;
  created_at: string;
}

/** A message as stored: the wire record plus its order in the session and its metadata. */
export interface StoredMessage extends SessionMessageRecord {
  /** Increasing within a session (insertion order). */
  seq: number;
  metadata: Record<string, unknown>;
}

/** The holder of a named lock (consolidation), when someone else has it. */
export interface LockHolder {
  holder: string;
  acquired_at: string;
  expires_at: string;
}

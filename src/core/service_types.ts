/** @module Inputs and results of the memory service that are not wire records. */
import type { Logger } from "./logger.ts";
import type { Embedder } from "./ports/language_model.ts";
import type { DocumentSource, InputWarning, Metadata, SourcedHit } from "./types.ts";

/** Search result payload (docs/tools.md#memory_search). */
export interface SearchResult {
  query: string;
  brain_id: string;
  hits: SourcedHit[];
  took_ms: number;
}

/** Write options only engram itself sets (ingestion, vault import), never a tool call. */
export interface WriteOptions {
  source?: DocumentSource;
  contentType?: string;
  /** Keep this id for a new document when no document anywhere has it (vault import). */
  id?: string;
  /** Timestamps for a new document (vault import). */
  createdAt?: string;
  updatedAt?: string;
  /**
   * What the caller's own reading of the input found (lines of the file as given), returned with
   * the record; without it, the content's front matter block is checked.
   */
  warnings?: InputWarning[];
}

/** Text extracted from a file or URL, ready to store. */
export interface IngestInput {
  brain?: string;
  path: string;
  content: string;
  title?: string;
  tags?: string[];
  metadata?: Metadata;
  /** SHA-256 of the source bytes: an unchanged source is not stored again. */
  sourceHash: string;
  contentType: string;
  /** Pre-allocated document id (queued ingestion reports it before the work is done). */
  id?: string;
  /** What reading the source could not take as written, returned with the response. */
  warnings?: InputWarning[];
}

/** Options for the service. */
export interface MemoryServiceOptions {
  /** Brain used when a call names none (config `default_brain` / `ENGRAM_DEFAULT_BRAIN`). */
  defaultBrain?: string;
  /** Embedding provider: chunks get vectors and search fuses them with full text. */
  embedder?: Embedder;
  logger?: Logger;
  /** The clock documents are stamped with (tests pass their own). */
  now?: () => Date;
}

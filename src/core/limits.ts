/** @module Input limits (docs/tools.md#limits), in one place so schemas, service and docs agree. */

/**
 * Wire limits for the memory tools, and the size limits of the ways in: one tool call
 * (`rememberContentChars`) is smaller than a file ingestion (`ingestFileBytes`), and every document
 * stored by any way is at most `documentChars`, which vault import therefore accepts back.
 */
export const LIMITS = {
  /** Content of one memory_remember or memory_update call (and `engram remember`). */
  rememberContentChars: 5_000_000,
  /** A file memory_ingest_file or `engram ingest` reads: 25 MiB. */
  ingestFileBytes: 25 * 1024 * 1024,
  /**
   * Content of any stored document, whatever wrote it: 64 Mi characters, room for a 25 MiB text
   * file and for what a PDF or chat transcript of that size extracts to.
   */
  documentChars: 64 * 1024 * 1024,
  /**
   * A note `engram import` reads: a document of `documentChars` UTF-8 characters (at most 3 bytes
   * each) plus its front matter.
   */
  importFileBytes: 256 * 1024 * 1024,
  titleChars: 512,
  pathChars: 1024,
  tags: 64,
  tagChars: 64,
  queryChars: 4096,
  topK: 100,
  brainNameChars: 128,
  slugChars: 64,
  metadataKeyChars: 128,
  timelineLimit: 500,
  messages: 500,
  messageChars: 1_000_000,
  sessionIdChars: 128,
  recallTopK: 50,
  askChars: 8192,
} as const;

/** The slug rule for brains. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

/** Scope name → path prefix. */
export const SCOPE_PREFIX = {
  global: "/memory/global/",
  project: "/memory/project/",
  agent: "/memory/agent/",
} as const;

/** A scope filter accepted by search. */
export type Scope = "all" | keyof typeof SCOPE_PREFIX;

/** The path prefix of the documents a scope covers ("/" for all). */
export function scopePrefix(scope: Scope): string {
  return scope === "all" ? "/" : SCOPE_PREFIX[scope];
}

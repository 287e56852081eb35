/** @module Input limits from TOOLS.md, in one place so schemas, service and docs agree. */

/** Wire limits for the memory tools. */
export const LIMITS = {
  contentChars: 5_000_000,
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

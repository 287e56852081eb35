/**
 * @module Input schemas of the synthesis tools (issue 18): memory_pack, memory_open_loops,
 * memory_decisions, memory_meeting_extract, and memory_ask's `strict`; shared by the MCP tools
 * and the CLI.
 */
import { z } from "zod";
import { ageOrTime } from "../age_or_time.ts";
import { EngramError } from "../errors.ts";
import { LIMITS } from "../limits.ts";
import { brain, searchScope } from "../schemas.ts";

/** Token budgets a pack accepts. */
const PACK_BUDGET = { min: 200, max: 100_000, default: 4_000 } as const;

/** Longest meeting text a tool call takes (the memory_remember ceiling). */
const MEETING_CONTENT_CHARS = LIMITS.rememberContentChars;

const SINCE =
  /^(?:\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?)?|\d{1,4}[mhdw])$/;

/** A point in time: RFC 3339, a date, or an age such as 7d (minutes m, hours h, days d, weeks w). */
export const since = z.string().regex(
  SINCE,
  "since must be an RFC 3339 time, a date (2024-05-01) or an age such as 24h, 7d, 2w or 30m",
).describe("Only what was written since: an RFC 3339 time, a date, or an age (30m, 24h, 7d, 2w)");

const path = z.string().min(1).max(LIMITS.pathChars).refine(
  (p) => p.startsWith("/") && !p.includes("\0"),
  "a path starts with / (a document such as /memory/project/plan.md, or a folder ending in /)",
);

/** memory_pack input. */
export const PackInput = z.object({
  query: z.string().min(1).max(LIMITS.queryChars).optional().describe(
    "What the pack is about; its most relevant passages come first",
  ),
  paths: z.array(path).min(1).max(100).optional().describe(
    "Pack these documents (or folders ending in /) instead of searching",
  ),
  ids: z.array(z.string().min(1).max(128)).min(1).max(100).optional().describe(
    "Pack these documents, by id",
  ),
  budget_tokens: z.number().int().min(
    PACK_BUDGET.min,
    `budget_tokens must be at least ${PACK_BUDGET.min}: room for a header and one excerpt`,
  ).max(PACK_BUDGET.max, `budget_tokens is at most ${PACK_BUDGET.max}`).default(
    PACK_BUDGET.default,
  ).describe("Most tokens the pack may take (cl100k_base tokens)"),
  brain,
  scope: searchScope,
});

/** memory_open_loops input. */
export const OpenLoopsInput = z.object({
  brain,
  since: since.optional(),
  scope: searchScope,
  limit: z.number().int().min(1).max(500).default(50),
  include_closed: z.boolean().default(false).describe(
    "Also list items checked off, answered or removed since",
  ),
  kinds: z.array(z.enum(["task", "question", "commitment"])).min(1).max(3).optional().describe(
    "Only these kinds (default: all three)",
  ),
});

/** memory_decisions input. */
export const DecisionsInput = z.object({
  brain,
  query: z.string().min(1).max(LIMITS.queryChars).optional().describe(
    "A topic: only decisions about it (else every decision, newest documents first)",
  ),
  since: since.optional(),
  limit: z.number().int().min(1).max(100).default(20),
});

/** memory_meeting_extract's fields besides the text (the CLI reads files of any size). */
export const MeetingFields = z.object({
  brain,
  title: z.string().min(1).max(LIMITS.titleChars).optional().describe(
    "The meeting's title (else read from the notes)",
  ),
  store: z.boolean().default(false).describe(
    "Also store the result as a note linked to its source (needs tier write)",
  ),
});

/** memory_meeting_extract input. */
export const MeetingInput = MeetingFields.extend({
  content: z.string().min(1, "content is empty; give the notes or transcript text").max(
    MEETING_CONTENT_CHARS,
    `content is over ${MEETING_CONTENT_CHARS} characters; store the transcript first (memory_ingest_file takes up to 25 MiB) and pass its path as document`,
  ).optional().describe("The meeting notes or transcript text"),
  document: z.string().min(1).max(LIMITS.pathChars).optional().describe(
    "A stored document instead: its id (doc_…) or brain path — not a local file",
  ),
}).refine(
  (v) => (v.content === undefined) !== (v.document === undefined),
  "give exactly one of content (the notes' text) or document (a stored document's id or path)",
);

/** Parsed memory_pack input. */
export type PackArgs = z.infer<typeof PackInput>;
/** Parsed memory_open_loops input. */
export type OpenLoopsArgs = z.infer<typeof OpenLoopsInput>;
/** Parsed memory_decisions input. */
export type DecisionsArgs = z.infer<typeof DecisionsInput>;
/** Parsed memory_meeting_extract input. */
export type MeetingArgs = z.infer<typeof MeetingInput>;

/** The instant an RFC 3339 time, date or age (`7d`) names, as an ISO string. */
export function sinceInstant(value: string, now: Date): string {
  const at = ageOrTime(value, { now });
  if (at === null) {
    throw new EngramError(
      "invalid_argument",
      `since "${value}" is not a valid time; give an RFC 3339 time, a date (2024-05-01) or an age (7d)`,
    );
  }
  return at;
}

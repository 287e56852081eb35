/** @module Input schemas for the memory operations, shared by MCP tools and the CLI (validation at the edge). */
import { z } from "zod";
import { LIMITS, SLUG_PATTERN } from "./limits.ts";

/** The optional `brain` argument of every brain-scoped tool. */
export const brain = z.string().min(1).max(128).describe(
  "Brain slug or id; default: the default brain",
)
  .optional();
/** The `scope` of a search: everything, or only /memory/global|project|agent/. */
export const searchScope = z.enum(["all", "global", "project", "agent"]).default("all");
/** The optional `group` of a search: one hit per document, or every matching chunk. */
export const group = z.enum(["document", "chunk"]).optional().describe(
  "document (default): the best chunk of each document, with more_chunks; chunk: every matching chunk",
);
const path = z.string().min(1).max(LIMITS.pathChars).refine(
  (p) => !p.includes("\0"),
  "path must not contain NUL",
);
const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const metadata = z.record(z.string().min(1).max(LIMITS.metadataKeyChars), metadataValue);
const tag = z.string().trim().min(1).max(LIMITS.tagChars).refine(
  (t) => !t.includes(","),
  "tags cannot contain commas",
);
const tags = z.array(tag).max(LIMITS.tags);
const ref = {
  id: z.string().min(1).max(128).optional().describe("Document id (doc_…)"),
  path: path.optional().describe("Document path, e.g. /memory/global/running.md"),
};
const needsRef = (v: { id?: string; path?: string }) =>
  (v.id === undefined) !== (v.path === undefined);
const REF_MESSAGE = "give exactly one of id or path";

/** memory_search input. */
export const SearchInput = z.object({
  query: z.string().min(1).max(LIMITS.queryChars).describe("Words to find; any text is safe"),
  brain,
  top_k: z.number().int().min(1).max(LIMITS.topK).default(10),
  scope: searchScope,
  sort: z.enum(["relevance", "recency", "relevance_then_recency"]).default("relevance"),
  group,
});

/** memory_remember input. */
export const RememberInput = z.object({
  content: z.string().min(1).max(LIMITS.rememberContentChars).describe("Markdown content"),
  title: z.string().min(1).max(LIMITS.titleChars).optional().describe(
    "Else the first heading, else the first line",
  ),
  brain,
  tags: tags.optional().describe("Stored as metadata.tags, comma-joined"),
  path: path.optional().describe("Else /memory/global/<slug of title>.md"),
  metadata: metadata.optional(),
});

/** memory_get input. */
export const GetInput = z.object({
  ...ref,
  brain,
  version: z.number().int().min(1).optional().describe(
    "A past version number; current when omitted",
  ),
}).refine(needsRef, REF_MESSAGE);

/** memory_update input. */
export const UpdateInput = z.object({
  ...ref,
  brain,
  content: z.string().min(1).max(LIMITS.rememberContentChars).optional(),
  title: z.string().min(1).max(LIMITS.titleChars).optional(),
  tags: tags.optional().describe("Replaces the tags"),
  metadata: metadata.optional().describe("Merged into the metadata; a null value removes the key"),
  new_path: path.optional().describe("Move the document to this path"),
}).refine(needsRef, REF_MESSAGE);

/** memory_forget input. */
export const ForgetInput = z.object({ ...ref, brain }).refine(needsRef, REF_MESSAGE);

/** memory_timeline input. */
export const TimelineInput = z.object({
  brain,
  limit: z.number().int().min(1).max(LIMITS.timelineLimit).default(20),
  since: z.iso.datetime({ offset: true }).optional().describe(
    "RFC 3339 time; only changes at or after it",
  ),
});

/** memory_backlinks input. */
export const BacklinksInput = z.object({ ...ref, brain }).refine(needsRef, REF_MESSAGE);

/** Input for tools that only take a brain. */
export const BrainOnlyInput = z.object({ brain });

/** memory_list_brains input. */
export const ListBrainsInput = z.object({});

const brainName = z.string().min(1).max(LIMITS.brainNameChars);
const slug = z.string().min(1).max(LIMITS.slugChars).regex(
  SLUG_PATTERN,
  "slug must match ^[a-z0-9][a-z0-9-]*$",
);

/** memory_create_brain input. */
export const CreateBrainInput = z.object({
  name: brainName,
  slug: slug.optional(),
  visibility: z.enum(["private", "tenant", "public"]).default("private"),
});

/** `brains rename` input: the brain, and a new name, a new slug, or both. */
export const RenameBrainInput = z.object({
  brain: z.string().min(1).max(128),
  name: brainName.optional(),
  slug: slug.optional(),
}).refine((v) => v.name !== undefined || v.slug !== undefined, "give a new name or slug");

/** Input of a document listing: live documents under a path prefix, a page at a time. */
export const ListInput = z.object({
  brain,
  prefix: z.string().min(1).max(LIMITS.pathChars).refine(
    (p) => p.startsWith("/") && !p.includes("\0"),
    "prefix must start with / and not contain NUL",
  ).default("/"),
  after: path.optional().describe("The last path of the previous page"),
  limit: z.number().int().min(1).max(1000).default(100),
});

/** Parsed input types. */
export type SearchArgs = z.infer<typeof SearchInput>;
/** Parsed remember input. */
export type RememberArgs = z.infer<typeof RememberInput>;
/** Parsed get input. */
export type GetArgs = z.infer<typeof GetInput>;
/** Parsed update input. */
export type UpdateArgs = z.infer<typeof UpdateInput>;
/** Parsed forget / backlinks input. */
export type RefArgs = z.infer<typeof ForgetInput>;
/** Parsed timeline input. */
export type TimelineArgs = z.infer<typeof TimelineInput>;
/** Parsed create-brain input. */
export type CreateBrainArgs = z.infer<typeof CreateBrainInput>;
/** Parsed rename-brain input. */
export type RenameBrainArgs = z.infer<typeof RenameBrainInput>;
/** Parsed document-listing input. */
export type ListArgs = z.infer<typeof ListInput>;

/** @module memory_timeline, memory_backlinks, memory_tags, memory_stats. */
import { z } from "zod";
import { BacklinksInput, BrainOnlyInput, TimelineInput } from "../../../core/schemas.ts";
import type { OutputSchemas } from "../output_schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

const timelineOutput = () =>
  z.looseObject({
    brain_id: z.string(),
    items: z.array(z.looseObject({
      document_id: z.string(),
      path: z.string(),
      title: z.string(),
      version: z.number().int(),
      commit_sha: z.string(),
      action: z.enum(["created", "updated", "deleted"]),
      at: z.string(),
    })),
  });

/** Recent changes. */
export const memoryTimeline = defineTool({
  name: "memory_timeline",
  title: "Recent changes",
  tier: "read",
  description:
    "Recent changes in a brain, newest first: created, updated (one entry per version) and deleted documents. since limits to changes at or after an RFC 3339 time.",
  input: TimelineInput,
  output: timelineOutput,
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.timeline(ctx.caller, args),
  summary: (r) =>
    r.items.length === 0
      ? "No changes."
      : r.items.map((i) => `${i.at} ${i.action} ${i.path} (v${i.version})`).join("\n"),
  brainOf: (r) => r.brain_id,
});

const backlinksOutput = (o: OutputSchemas) =>
  z.looseObject({
    document: o.DocumentRecordSchema,
    items: z.array(z.looseObject({
      document_id: z.string(),
      path: z.string(),
      title: z.string(),
      kind: z.enum(["wiki", "markdown"]),
      text: z.string(),
    })),
  });

/** Documents linking to a document. */
export const memoryBacklinks = defineTool({
  name: "memory_backlinks",
  title: "Backlinks",
  tier: "read",
  description:
    "Documents that link to the given one, by [[wiki link]] (matched on title or file name, case-insensitive) or by a relative markdown link resolving to its path.",
  input: BacklinksInput,
  output: backlinksOutput,
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.backlinks(ctx.caller, args),
  summary: (r) =>
    r.items.length === 0
      ? `No documents link to ${r.document.path}.`
      : `${r.items.length} document(s) link to ${r.document.path}:\n` +
        r.items.map((i) => `- ${i.path} (${i.kind}: ${i.text})`).join("\n"),
  brainOf: (r) => r.document.brain_id,
});

/** Tags in use. */
export const memoryTags = defineTool({
  name: "memory_tags",
  title: "Tags",
  tier: "read",
  description:
    "Tags used in a brain with the number of live documents carrying each, most used first.",
  input: BrainOnlyInput,
  output: () =>
    z.looseObject({
      brain_id: z.string(),
      items: z.array(z.object({ tag: z.string(), count: z.number().int() })),
    }),
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.tags(ctx.caller, args),
  summary: (r) =>
    r.items.length === 0 ? "No tags." : r.items.map((t) => `${t.tag} (${t.count})`).join(", "),
  brainOf: (r) => r.brain_id,
});

/** Brain statistics. */
export const memoryStats = defineTool({
  name: "memory_stats",
  title: "Brain statistics",
  tier: "read",
  description:
    "Counts for a brain: live and forgotten documents, versions, chunks, bytes, tags, last change.",
  input: BrainOnlyInput,
  output: () =>
    z.looseObject({
      brain_id: z.string(),
      brain_slug: z.string(),
      documents: z.number().int(),
      deleted_documents: z.number().int(),
      versions: z.number().int(),
      chunks: z.number().int(),
      bytes: z.number().int(),
      tags: z.number().int(),
      last_updated_at: z.string().nullable(),
    }),
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.stats(ctx.caller, args),
  summary: (s) =>
    `Brain ${s.brain_slug}: ${s.documents} documents (${s.deleted_documents} forgotten), ${s.versions} versions, ${s.chunks} chunks, ${s.bytes} bytes, ${s.tags} tags; last change ${
      s.last_updated_at ?? "never"
    }`,
  brainOf: (s) => s.brain_id,
});

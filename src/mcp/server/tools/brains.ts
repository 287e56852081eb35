/** @module memory_list_brains, memory_create_brain, memory_reindex. */
import { z } from "zod";
import { BrainOnlyInput, CreateBrainInput, ListBrainsInput } from "../../../core/schemas.ts";
import { ADDITIVE, defineTool, READ_ONLY } from "../tool.ts";

/** Brains the caller may access. */
export const memoryListBrains = defineTool({
  name: "memory_list_brains",
  title: "List brains",
  tier: "read",
  description: "The brains (isolated knowledge bases) this caller may access, oldest first.",
  input: ListBrainsInput,
  output: (o) => z.looseObject({ items: z.array(o.BrainSchema) }),
  annotations: READ_ONLY,
  run: async (ctx) => ({ items: await ctx.service.listBrains(ctx.caller) }),
  summary: (r) =>
    r.items.length === 0
      ? "No brains."
      : r.items.map((b) => `${b.slug} — ${b.name} (${b.visibility}, id ${b.id})`).join("\n"),
});

/** Create a brain. */
export const memoryCreateBrain = defineTool({
  name: "memory_create_brain",
  title: "Create a brain",
  tier: "admin",
  description:
    "Create a brain. slug must match ^[a-z0-9][a-z0-9-]*$ (1..64); when omitted it is generated from the name. visibility: private (default), tenant or public.",
  input: CreateBrainInput,
  output: (o) => o.BrainSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: (ctx, args) => ctx.service.createBrain(args),
  summary: (b) => `Created brain ${b.slug} (${b.name}, ${b.visibility}, id ${b.id})`,
  brainOf: (b) => b.id,
});

/** Rebuild the search index. */
export const memoryReindex = defineTool({
  name: "memory_reindex",
  title: "Rebuild the index",
  tier: "admin",
  description:
    "Re-chunk every live document of a brain and rebuild its full-text index and links. Content and versions are unchanged.",
  input: BrainOnlyInput,
  output: (o) => o.ReindexOutputSchema,
  annotations: ADDITIVE,
  run: (ctx, args) => ctx.service.reindex(ctx.caller, args),
  summary: (r) => `Reindexed ${r.documents} documents into ${r.chunks} chunks in ${r.took_ms} ms`,
  brainOf: (r) => r.brain_id,
});

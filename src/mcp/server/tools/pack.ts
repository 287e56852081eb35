/** @module memory_pack: a cited bundle of what memory holds, within a token budget. */
import type { PackResult } from "../../../core/synthesis/pack.ts";
import { PackInput } from "../../../core/synthesis/synthesis_schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

/** Pack what memory holds about something into a token budget. */
export const memoryPack = defineTool({
  name: "memory_pack",
  title: "Pack context",
  tier: "read",
  description:
    "Pack what memory holds into a compact, cited bundle within budget_tokens (default 4000, cl100k_base): the passages most relevant to query first (or the documents in paths/ids; with neither, the most recently changed), without repeats, each headed by its path.",
  input: PackInput,
  output: (o) => o.PackOutputSchema,
  annotations: READ_ONLY,
  // The core module (and the tokenizer it loads) is imported on first use, not at start-up.
  run: async (ctx, args) =>
    (await import("../../../core/synthesis/pack.ts")).pack(ctx, ctx.caller, args),
  summary: (r: PackResult) => {
    if (r.sources.length === 0) return r.note ?? "Nothing to pack.";
    const cut = r.truncated ? "; truncated to fit" : "";
    return `${r.pack.trimEnd()}\n\n(${r.tokens} of ${r.budget_tokens} ${r.tokenizer} tokens from ${r.sources.length} document(s)${cut})`;
  },
  brainOf: (r: PackResult) => r.brain_id,
});

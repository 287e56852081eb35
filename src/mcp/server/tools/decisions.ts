/** @module memory_decisions: the decisions a brain records, cited. */
import type { DecisionsResult } from "../../../core/synthesis/decisions.ts";
import { DecisionsInput } from "../../../core/synthesis/synthesis_schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

/** Decisions recorded in memory, optionally about a topic. */
export const memoryDecisions = defineTool({
  name: "memory_decisions",
  title: "Decisions",
  tier: "read",
  description:
    'Decisions recorded in memory ("we decided…", "agreed…", "going with…", "Decision:", a Decisions section), all or only those about query, each with a verbatim citation. With query, the best passages go to the configured model (else rules); without, every document is read by rule, newest first.',
  input: DecisionsInput,
  output: (o) => o.DecisionsOutputSchema,
  annotations: { ...READ_ONLY, idempotentHint: false },
  run: async (ctx, args) =>
    (await import("../../../core/synthesis/decisions.ts")).decisions(ctx, ctx.caller, args, {
      signal: ctx.signal,
    }),
  summary: (r: DecisionsResult) => {
    if (r.decisions.length === 0) return r.note ?? "No decisions found.";
    return r.decisions.map((d, i) =>
      `${i + 1}. ${d.statement}${
        d.rationale ? ` (because ${d.rationale})` : ""
      } — ${d.citation.path}${d.when ? `, ${d.when}` : ""}${d.who ? `, ${d.who}` : ""}`
    ).join("\n");
  },
  brainOf: (r: DecisionsResult) => r.brain_id,
});

/** @module memory_consolidate. */
import type { ConsolidationReport } from "../../../core/sessions/consolidate.ts";
import { ConsolidateInput } from "../../../core/sessions/session_schemas.ts";
import { defineTool } from "../tool.ts";

/** A one-paragraph account of a consolidation report (tool text and CLI output). */
export function consolidationSummary(r: ConsolidationReport): string {
  const changed = r.summaries.filter((s) => s.action !== "unchanged").length;
  const verb = r.dry_run ? "would " : "";
  return `Consolidation of brain "${r.brain_slug}"${r.dry_run ? " (dry run)" : ""}: ${verb}${
    r.dry_run ? "write" : "wrote"
  } ${changed} of ${r.summaries.length} summaries, ${verb}${
    r.dry_run ? "promote" : "promoted"
  } ${r.promoted.length} fact(s), ${verb}${
    r.dry_run ? "retire" : "retired"
  } ${r.retired.length} stable note(s), ${verb}${
    r.dry_run ? "prune" : "pruned"
  } ${r.pruned.length} episode(s) in ${r.took_ms} ms.`;
}

/** One consolidation pass. */
export const memoryConsolidate = defineTool({
  name: "memory_consolidate",
  title: "Consolidate memory",
  tier: "admin",
  description:
    "One consolidation pass over a brain: compiles /memory/<scope>/facts.md and /memory/agent/episodes.md, promotes facts seen in several sessions to /memory/global/stable/, retires superseded ones and soft-deletes episodes past the configured age. dry_run only reports. Fails with conflict (retryable) while another pass runs.",
  input: ConsolidateInput,
  output: (o) => o.ConsolidateOutputSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (ctx, args) => {
    const { consolidate } = await import("../../../core/sessions/consolidate.ts");
    return {
      result: await consolidate({ service: ctx.service, locks: ctx.locks }, ctx.caller, {
        brain: args.brain,
        dryRun: args.dry_run,
        settings: ctx.consolidate,
      }),
    };
  },
  summary: (r: { result: ConsolidationReport }) => consolidationSummary(r.result),
  brainOf: (r: { result: ConsolidationReport }) => r.result.brain_id,
});

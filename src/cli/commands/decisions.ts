/** @module `engram decisions`: the decisions memory records, cited. */
import { decisions } from "../../core/synthesis/decisions.ts";
import { DecisionsInput } from "../../core/synthesis/synthesis_schemas.ts";
import {
  BRAIN_OPTION,
  commandInput,
  type CommandSpec,
  configFlags,
  intOption,
  parseOrHelp,
} from "../args.ts";
import type { CommandContext } from "../context.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram decisions`. */
export const DECISIONS_SPEC: CommandSpec = {
  name: "decisions",
  usage: "engram decisions [QUERY] [--since D] [--limit N] [--brain SLUG] [--json]",
  summary:
    'List the decisions memory records ("we decided…", "agreed…", "going with…", "Decision:"), or those about QUERY, each with where it is written. With QUERY and a configured model, the model reads the best passages; otherwise rules do.',
  options: {
    since: { type: "string", help: "D  only since: a date (2024-05-01), a time, or an age (30d)" },
    limit: { type: "string", help: "N  most decisions, 1..100 (default 20)" },
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print { decisions, provider, ... } as JSON" },
  },
  positionals: [0, 1],
};

/** Lists decisions. */
export async function decisionsCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, DECISIONS_SPEC, ctx.out);
  if (!args) return 0;
  const input = commandInput(
    DecisionsInput,
    {
      query: args.positionals[0],
      since: args.values.since,
      limit: intOption(DECISIONS_SPEC, args.values, "limit"),
      brain: args.values.brain,
    },
    { spec: DECISIONS_SPEC },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const result = await decisions(
      { service: runtime.service, model: runtime.providers.background() },
      CLI_CALLER,
      input,
    );
    if (args.values.json) {
      ctx.out.json(result);
      return 0;
    }
    if (result.decisions.length === 0) {
      ctx.out.line(result.note ?? "no decisions found");
      return 0;
    }
    result.decisions.forEach((d, i) => {
      ctx.out.line(`${ctx.out.bold(`${i + 1}.`)} ${d.statement}`);
      if (d.rationale) ctx.out.line(`   because ${d.rationale}`);
      const meta = [d.when, d.who].filter(Boolean).join(", ");
      ctx.out.line(ctx.out.dim(`   ${d.citation.path}${meta ? `  ${meta}` : ""}`));
    });
    return 0;
  });
}

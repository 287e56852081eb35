/** @module `engram loops`: what is still open — tasks, unanswered questions, commitments. */
import { openLoops } from "../../core/synthesis/open_loops.ts";
import { ownerAndDue } from "../../core/synthesis/item_text.ts";
import { OpenLoopsInput } from "../../core/synthesis/synthesis_schemas.ts";
import {
  BRAIN_OPTION,
  commandInput,
  type CommandSpec,
  configFlags,
  intOption,
  parseOrHelp,
} from "../args.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram loops`. */
export const LOOPS_SPEC: CommandSpec = {
  name: "loops",
  usage:
    "engram loops [--since D] [--kind K]... [--scope S] [--limit N] [--all] [--brain SLUG] [--json]",
  summary:
    'List open loops: unchecked tasks (- [ ], TODO, follow-ups, action items), questions nobody answered, and commitments ("I\'ll…", "waiting on…"), newest first, with where each was written.',
  options: {
    since: {
      type: "string",
      help: "D  only items first seen since: a date (2024-05-01), a time, or an age (7d, 2w)",
    },
    kind: { type: "string", multiple: true, help: "K  task, question or commitment" },
    scope: { type: "string", help: "S  all (default), global, project or agent" },
    limit: { type: "string", help: "N  most items, 1..500 (default 50)" },
    all: { type: "boolean", help: "also list closed items (checked off, answered, removed)" },
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print { items, open_counts, ... } as JSON" },
  },
  positionals: [0, 0],
};

/** Lists open loops. */
export async function loopsCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, LOOPS_SPEC, ctx.out);
  if (!args) return 0;
  const input = commandInput(
    OpenLoopsInput,
    {
      since: args.values.since,
      kinds: args.values.kind,
      scope: args.values.scope,
      limit: intOption(LOOPS_SPEC, args.values, "limit"),
      include_closed: args.values.all === true,
      brain: args.values.brain,
    },
    { spec: LOOPS_SPEC, renames: { kinds: "--kind", include_closed: "--all" } },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const result = await openLoops({ service: runtime.service }, CLI_CALLER, input);
    if (args.values.json) {
      ctx.out.json(result);
      return 0;
    }
    if (result.items.length === 0) {
      ctx.out.line(result.note ?? "nothing open");
      return 0;
    }
    ctx.out.line(table(result.items.map((i) => [
      i.status === "open" ? i.kind : `${i.kind} (${i.closed_by})`,
      i.text.replace(/\s+/g, " ").slice(0, 100),
      ownerAndDue(i),
      ctx.out.dim(`${i.path}:${i.line}  ${i.first_seen.slice(0, 10)}`),
    ])));
    if (result.truncated) ctx.out.line(ctx.out.dim(`(more: raise --limit)`));
    return 0;
  });
}

/** @module `engram list`: every live document of a brain, read a page at a time. */
import { ListInput } from "../../core/schemas.ts";
import type { DocumentRecord } from "../../core/types.ts";
import { BRAIN_OPTION, commandInput, type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Documents read per query; the listing goes on until the brain is exhausted. */
const PAGE = 500;

/** Usage of `engram list`. */
export const LIST_SPEC: CommandSpec = {
  name: "list",
  usage: "engram list [--prefix P] [--brain SLUG] [--json]",
  summary: "List the live documents of a brain in path order: path, title, version, updated.",
  options: {
    prefix: { type: "string", help: "P  only paths starting with P, e.g. /memory/ (else all)" },
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print { brain_id, items: [DocumentRecord…] } as JSON" },
  },
  positionals: [0, 0],
};

/** Lists documents, all of them however many pages that takes. */
export async function listCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, LIST_SPEC, ctx.out);
  if (!args) return 0;
  const input = commandInput(
    ListInput,
    {
      brain: args.values.brain,
      prefix: args.values.prefix,
      limit: PAGE,
    },
    { spec: LIST_SPEC },
  );
  return await withRuntime(ctx, configFlags(args.values), async ({ service }) => {
    const brain = await service.brain(CLI_CALLER, input.brain);
    const items: DocumentRecord[] = [];
    let after: string | undefined;
    do {
      const page = await service.list(CLI_CALLER, { ...input, brain: brain.id, after });
      items.push(...page.items);
      after = page.next_after;
    } while (after !== undefined);
    if (args.values.json) {
      ctx.out.json({ brain_id: brain.id, items });
    } else if (items.length === 0) {
      const under = input.prefix === "/" ? "" : ` under ${input.prefix}`;
      ctx.out.line(`no documents in brain "${brain.slug}"${under}`);
    } else {
      ctx.out.line(table([
        ["PATH", "TITLE", "VERSION", "UPDATED"],
        ...items.map((d) => [d.path, d.title, String(d.version), d.updated_at]),
      ]));
    }
    return 0;
  });
}

/** @module `engram brains list | create`. */
import { CreateBrainInput } from "../../core/schemas.ts";
import { parseInput } from "../../core/validate.ts";
import { type CommandSpec, configFlags, helpText, parseOrHelp, usageError } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

const BRAINS_SPEC: CommandSpec = {
  name: "brains",
  usage: "engram brains (list | create NAME) [options]",
  summary:
    "List or create brains (isolated knowledge bases).\n\n  list                list brains\n  create NAME         create a brain",
  options: {},
  positionals: [0, 2],
};

/** Usage of `engram brains list`. */
export const BRAINS_LIST_SPEC: CommandSpec = {
  name: "brains list",
  usage: "engram brains list [--json]",
  summary: "List brains.",
  options: { json: { type: "boolean", help: "print as JSON" } },
  positionals: [0, 0],
};

/** Usage of `engram brains create`. */
export const BRAINS_CREATE_SPEC: CommandSpec = {
  name: "brains create",
  usage: "engram brains create NAME [--slug S] [--visibility private|tenant|public] [--json]",
  summary:
    "Create a brain. The slug is generated from the name unless given; it must match ^[a-z0-9][a-z0-9-]*$.",
  options: {
    slug: { type: "string", help: "S  slug, 1..64 of a-z 0-9 and -" },
    visibility: { type: "string", help: "V  private (default), tenant or public" },
    json: { type: "boolean", help: "print the brain as JSON" },
  },
  positionals: [1, 1],
};

/** Dispatches `brains list` and `brains create`. */
export async function brainsCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return await list(rest, ctx);
  if (sub === "create") return await create(rest, ctx);
  if (sub === undefined) {
    ctx.out.warn(helpText(BRAINS_SPEC));
    return 2;
  }
  if (sub === "--help" || sub === "-h") {
    ctx.out.line(helpText(BRAINS_SPEC));
    return 0;
  }
  throw usageError(BRAINS_SPEC, `unknown brains command "${sub}"`);
}

async function list(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, BRAINS_LIST_SPEC, ctx.out);
  if (!args) return 0;
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const items = await runtime.service.listBrains(CLI_CALLER);
    if (args.values.json) ctx.out.json({ items });
    else {ctx.out.line(
        table([
          ["SLUG", "NAME", "VISIBILITY", "ID"],
          ...items.map((b) => [b.slug, b.name, b.visibility, b.id]),
        ]),
      );}
    return 0;
  });
}

async function create(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, BRAINS_CREATE_SPEC, ctx.out);
  if (!args) return 0;
  const input = parseInput(CreateBrainInput, {
    name: args.positionals[0],
    slug: args.values.slug,
    visibility: args.values.visibility,
  }, "brains create");
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const brain = await runtime.service.createBrain(input);
    if (args.values.json) ctx.out.json(brain);
    else {ctx.out.line(
        `created brain ${brain.slug} (${brain.name}, ${brain.visibility}, id ${brain.id})`,
      );}
    return 0;
  });
}

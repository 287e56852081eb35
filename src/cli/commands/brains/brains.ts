/** @module `engram brains list | create | rename | delete`: the group and its two simplest commands. */
import { CreateBrainInput } from "../../../core/schemas.ts";
import { commandInput, type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { asksForHelp, groupHelpText, type GroupSpec, unknownSubcommand } from "../../group_help.ts";
import { BRAINS_DELETE_SPEC, brainsDelete } from "./brains_delete.ts";
import { BRAINS_RENAME_SPEC, brainsRename } from "./brains_rename.ts";
import { table } from "../../output.ts";
import { CLI_CALLER, withRuntime } from "../../runtime.ts";

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

const BRAINS_USAGE = "engram brains (list | create NAME | rename SLUG | delete SLUG) [options]";

/** The brains group: its help lists every subcommand with its options. */
const BRAINS_GROUP: GroupSpec = {
  name: "brains",
  usage: BRAINS_USAGE,
  summary: "Manage brains (isolated knowledge bases).",
  subcommands: [BRAINS_LIST_SPEC, BRAINS_CREATE_SPEC, BRAINS_RENAME_SPEC, BRAINS_DELETE_SPEC],
};

/** Dispatches `brains list`, `create`, `rename` and `delete`. */
export async function brainsCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return await list(rest, ctx);
  if (sub === "create") return await create(rest, ctx);
  if (sub === "rename") return await brainsRename(rest, ctx);
  if (sub === "delete") return await brainsDelete(rest, ctx);
  if (sub === undefined) {
    ctx.out.warn(groupHelpText(BRAINS_GROUP));
    return 2;
  }
  if (asksForHelp(sub)) {
    ctx.out.line(groupHelpText(BRAINS_GROUP));
    return 0;
  }
  throw unknownSubcommand(BRAINS_GROUP, sub);
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
  const input = commandInput(
    CreateBrainInput,
    {
      name: args.positionals[0],
      slug: args.values.slug,
      visibility: args.values.visibility,
    },
    { spec: BRAINS_CREATE_SPEC },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const brain = await runtime.service.createBrain(input);
    if (args.values.json) ctx.out.json(brain);
    else {ctx.out.line(
        `created brain ${brain.slug} (${brain.name}, ${brain.visibility}, id ${brain.id})`,
      );}
    return 0;
  });
}

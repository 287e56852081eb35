/** @module `engram brains rename SLUG [--name N] [--slug S]`. */
import { RenameBrainInput } from "../../../core/schemas.ts";
import {
  commandInput,
  type CommandSpec,
  configFlags,
  parseOrHelp,
  usageError,
} from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { CLI_CALLER, withRuntime } from "../../runtime.ts";

/** Usage of `engram brains rename`. */
export const BRAINS_RENAME_SPEC: CommandSpec = {
  name: "brains rename",
  usage: "engram brains rename SLUG [--name N] [--slug S] [--json]",
  summary: "Rename a brain: a new display name, a new slug, or both. Tokens keep working " +
    "(they hold the brain's id).",
  options: {
    name: { type: "string", help: "N  new name, 1..128 characters" },
    slug: { type: "string", help: "S  new slug, 1..64 of a-z 0-9 and -" },
    json: { type: "boolean", help: "print the renamed brain as JSON" },
  },
  positionals: [1, 1],
};

/** Renames a brain and prints it. */
export async function brainsRename(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, BRAINS_RENAME_SPEC, ctx.out);
  if (!args) return 0;
  if (args.values.name === undefined && args.values.slug === undefined) {
    throw usageError(BRAINS_RENAME_SPEC, "give --name, --slug or both");
  }
  // Validated before the database is opened, so a typo never creates a data directory.
  const input = commandInput(
    RenameBrainInput,
    {
      brain: args.positionals[0],
      name: args.values.name,
      slug: args.values.slug,
    },
    { spec: BRAINS_RENAME_SPEC },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const before = await runtime.service.brain(CLI_CALLER, input.brain);
    const brain = await runtime.service.renameBrain(CLI_CALLER, { ...input, brain: before.id });
    if (args.values.json) ctx.out.json(brain);
    else {
      ctx.out.line(
        `renamed brain ${before.slug} (${before.name}) to ${brain.slug} (${brain.name}), id ${brain.id}`,
      );
    }
    return 0;
  });
}

/** @module `engram forget PATH|ID`: the memory_forget tool from the command line. */
import { ForgetInput } from "../../core/schemas.ts";
import { BRAIN_OPTION, commandInput, type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { byDocumentRef } from "../document_ref.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram forget`. */
export const FORGET_SPEC: CommandSpec = {
  name: "forget",
  usage: "engram forget PATH|ID [--brain SLUG] [--json]",
  summary: "Forget a document (soft delete): it leaves search, listings and get; its versions " +
    "are kept, and remembering the same path again restores it.\nA value starting with / is a " +
    "path; anything else is tried as an id, then as a path.",
  options: {
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print the forgotten DocumentRecord as JSON" },
  },
  positionals: [1, 1],
};

/** Forgets a document and says which. */
export async function forgetCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, FORGET_SPEC, ctx.out);
  if (!args) return 0;
  return await withRuntime(ctx, configFlags(args.values), async ({ service }) => {
    const brain = await service.brain(CLI_CALLER, args.values.brain as string | undefined);
    const doc = await byDocumentRef(
      args.positionals[0],
      brain,
      (lookup) =>
        service.forget(
          CLI_CALLER,
          commandInput(ForgetInput, { ...lookup, brain: brain.id }, { spec: FORGET_SPEC }),
        ),
    );
    if (args.values.json) ctx.out.json(doc);
    else {
      ctx.out.line(
        `forgot ${doc.path} (id ${doc.id}, version ${doc.version}) in brain ${brain.slug}; remember the same path to restore it`,
      );
    }
    return 0;
  });
}

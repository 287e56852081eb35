/** @module `engram pack`: a cited bundle of what memory holds, within a token budget. */
import { normalizePath } from "../../core/markdown/naming.ts";
import { pack } from "../../core/synthesis/pack.ts";
import { PackInput } from "../../core/synthesis/synthesis_schemas.ts";
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

/** Usage of `engram pack`. */
export const PACK_SPEC: CommandSpec = {
  name: "pack",
  usage:
    "engram pack [QUERY] [--budget N] [--path P]... [--id ID]... [--scope S] [--brain SLUG] [--json]",
  summary:
    "Pack what memory holds into one markdown bundle of at most N tokens (cl100k_base): the passages most relevant to QUERY first, or the documents given with --path/--id, or else the most recently changed; each excerpt headed by its path.",
  options: {
    budget: { type: "string", help: "N  most tokens, 200..100000 (default 4000)" },
    path: {
      type: "string",
      multiple: true,
      help: "P  a document path, or a folder ending in /, to pack",
    },
    id: { type: "string", multiple: true, help: "ID  a document id to pack" },
    scope: { type: "string", help: "S  all (default), global, project or agent" },
    brain: BRAIN_OPTION,
    json: {
      type: "boolean",
      help: "print { pack, sources, tokens, truncated, ... } as JSON",
    },
  },
  positionals: [0, 1],
};

/** Builds a pack and prints it. */
export async function packCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, PACK_SPEC, ctx.out);
  if (!args) return 0;
  const input = commandInput(
    PackInput,
    {
      query: args.positionals[0],
      budget_tokens: intOption(PACK_SPEC, args.values, "budget"),
      paths: (args.values.path as string[] | undefined)?.map(brainPath),
      ids: args.values.id,
      scope: args.values.scope,
      brain: args.values.brain,
    },
    { spec: PACK_SPEC, renames: { budget_tokens: "--budget", paths: "--path", ids: "--id" } },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const result = await pack({ service: runtime.service }, CLI_CALLER, input);
    if (args.values.json) {
      ctx.out.json(result);
      return 0;
    }
    if (result.sources.length === 0) {
      ctx.out.line(result.note ?? "nothing to pack");
      return 0;
    }
    ctx.out.write(result.pack);
    // The bundle alone goes to a pipe or file; a person also sees what it cost.
    if (ctx.out.isTerminal) {
      ctx.out.line(ctx.out.dim(
        `(${result.tokens} of ${result.budget_tokens} ${result.tokenizer} tokens, ${result.sources.length} document(s)${
          result.truncated ? ", truncated to fit" : ""
        })`,
      ));
    }
    return 0;
  });
}

/** A --path as `engram get` takes it: relative to the brain root; a trailing / keeps a folder. */
function brainPath(path: string): string {
  const normal = normalizePath(path);
  return path.endsWith("/") && normal !== "/" ? `${normal}/` : normal;
}

/** @module `engram get PATH|ID`: print one document, as memory_get returns it. */
import { GetInput } from "../../core/schemas.ts";
import type { DocumentWithContent } from "../../core/types.ts";
import {
  BRAIN_OPTION,
  commandInput,
  type CommandSpec,
  configFlags,
  intOption,
  parseOrHelp,
  usageError,
} from "../args.ts";
import type { CommandContext } from "../context.ts";
import { byDocumentRef } from "../document_ref.ts";
import type { Output } from "../output.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram get`. */
export const GET_SPEC: CommandSpec = {
  name: "get",
  usage: "engram get PATH|ID [--version N] [--brain SLUG] [--json]",
  summary: "Print a document: a short header (title, path, version, updated, tags), then its " +
    "content.\nA value starting with / is a path; anything else is tried as an id, then as a path.",
  options: {
    version: { type: "string", help: "N  an earlier version (else the current one)" },
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print the document with its content as JSON (as memory_get)" },
  },
  positionals: [1, 1],
};

/** Finds a document, at a version when asked, and prints it. */
export async function getCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, GET_SPEC, ctx.out);
  if (!args) return 0;
  const version = intOption(GET_SPEC, args.values, "version");
  if (version !== undefined && version < 1) {
    throw usageError(GET_SPEC, `--version must be 1 or more, got ${version}`);
  }
  const ref = args.positionals[0];
  return await withRuntime(ctx, configFlags(args.values), async ({ service }) => {
    const brain = await service.brain(CLI_CALLER, args.values.brain as string | undefined);
    const current = await byDocumentRef(
      ref,
      brain,
      (lookup) =>
        service.get(
          CLI_CALLER,
          commandInput(GetInput, { ...lookup, brain: brain.id }, { spec: GET_SPEC }),
        ),
    );
    const doc = version === undefined || version === current.version
      ? current
      : await service.get(CLI_CALLER, { id: current.id, brain: brain.id, version });
    if (args.values.json) ctx.out.json(doc);
    else print(ctx.out, doc);
    return 0;
  });
}

function print(out: Output, doc: DocumentWithContent): void {
  const tags = typeof doc.metadata.tags === "string" && doc.metadata.tags !== ""
    ? ` · tags ${doc.metadata.tags.split(",").join(", ")}`
    : "";
  out.line(out.bold(`# ${doc.title}`));
  out.line(
    out.dim(`${doc.path} · ${doc.id} · version ${doc.version} · updated ${doc.updated_at}${tags}`),
  );
  out.line("");
  out.write(doc.content.endsWith("\n") ? doc.content : `${doc.content}\n`);
}

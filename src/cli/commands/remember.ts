/** @module `engram remember`: store a markdown file or stdin as a document. */
import { EngramError } from "../../core/errors.ts";
import { RememberInput } from "../../core/schemas.ts";
import { parseInput } from "../../core/validate.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram remember`. */
export const REMEMBER_SPEC: CommandSpec = {
  name: "remember",
  usage: "engram remember [--title T] [--tag X]... [--path P] [--brain SLUG] [--json] (FILE | -)",
  summary:
    "Store a markdown document from FILE, or from stdin with -. The same path again makes a new version.",
  options: {
    title: { type: "string", help: "T  title (else the first heading, else the first line)" },
    tag: { type: "string", multiple: true, help: "X  a tag" },
    path: { type: "string", help: "P  document path (else /memory/global/<slug of title>.md)" },
    brain: { type: "string", help: "SLUG  brain slug or id" },
    json: { type: "boolean", help: "print the DocumentRecord as JSON" },
  },
  positionals: [1, 1],
};

/** Reads the content, remembers it, prints the record. */
export async function rememberCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, REMEMBER_SPEC, ctx.out);
  if (!args) return 0;
  const source = args.positionals[0];
  const content = source === "-"
    ? await new Response(ctx.stdin).text()
    : await readFile(source, ctx.cwd);
  const input = parseInput(RememberInput, {
    content,
    title: args.values.title,
    tags: args.values.tag,
    path: args.values.path,
    brain: args.values.brain,
  }, "remember");
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const doc = await runtime.service.remember(CLI_CALLER, input);
    if (args.values.json) ctx.out.json(doc);
    else {ctx.out.line(
        `remembered ${doc.path} (id ${doc.id}, version ${doc.version}, ${doc.byte_size} bytes)`,
      );}
    return 0;
  });
}

async function readFile(file: string, cwd: string): Promise<string> {
  const path = file.startsWith("/") ? file : `${cwd}/${file}`;
  try {
    const bytes = await Deno.readFile(path);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new EngramError(
        "invalid_argument",
        `${file} is not UTF-8 text; remember takes markdown or text files`,
      );
    }
  } catch (err) {
    if (err instanceof EngramError) throw err;
    if (err instanceof Deno.errors.NotFound) {
      throw new EngramError("not_found", `file ${file} does not exist`);
    }
    if (err instanceof Deno.errors.IsADirectory || (err as Error).message?.includes("directory")) {
      throw new EngramError(
        "invalid_argument",
        `${file} is a directory; give a file, or - for stdin`,
      );
    }
    throw new EngramError("internal", `cannot read ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

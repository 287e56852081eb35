/** @module `engram remember`: store a markdown file or stdin as a document. */
import { EngramError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { readNote } from "../../core/markdown/front_matter.ts";
import { RememberInput } from "../../core/schemas.ts";
import { decodeUtf8 } from "../../ingest/formats.ts";
import { commandInput, type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { readInputFile } from "../input_file.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram remember`. */
export const REMEMBER_SPEC: CommandSpec = {
  name: "remember",
  usage: "engram remember [--title T] [--tag X]... [--path P] [--brain SLUG] [--json] (FILE | -)",
  summary: "Store a markdown document from FILE, or from stdin with -. Front matter gives the " +
    "title, tags and metadata (--title wins; --tag adds); what it could not read as written is " +
    "stored anyway and named in a warning on stderr. Binary input is refused. The same path " +
    "again makes a new version.",
  options: {
    title: { type: "string", help: "T  title (else the first heading, else the first line)" },
    tag: { type: "string", multiple: true, help: "X  a tag" },
    path: { type: "string", help: "P  document path (else /memory/global/<slug of title>.md)" },
    brain: { type: "string", help: "SLUG  brain slug or id" },
    json: { type: "boolean", help: "print the DocumentRecord (with any warnings) as JSON" },
  },
  positionals: [1, 1],
};

/** Reads the content, remembers it, prints the record. */
export async function rememberCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, REMEMBER_SPEC, ctx.out);
  if (!args) return 0;
  const source = args.positionals[0];
  const bytes = await readInputFile(source, { cwd: ctx.cwd, stdin: ctx.stdin });
  // Stdin and files pass the same text check and front matter reading as `engram ingest`.
  const name = source === "-" ? "stdin" : source;
  const note = readNote(decodeUtf8(bytes, name));
  // Said here in the user's terms, before the schema's "Too small: expected string…" could.
  if (note.content.trim() === "") {
    throw new EngramError("invalid_argument", `${name} is empty: there is nothing to remember`);
  }
  if (note.content.length > LIMITS.rememberContentChars) {
    throw new EngramError(
      "file_too_large",
      `${name} holds ${
        note.content.length.toLocaleString("en-US")
      } characters; remember takes at most ${
        LIMITS.rememberContentChars.toLocaleString("en-US")
      } — for a larger file use: engram ingest ${source === "-" ? "FILE" : source} (up to 25 MiB)`,
    );
  }
  const tags = [
    ...new Set([...(note.tags ?? []), ...((args.values.tag as string[] | undefined) ?? [])]),
  ];
  const input = commandInput(
    RememberInput,
    {
      content: note.content,
      title: args.values.title ?? note.title,
      tags: tags.length ? tags : undefined,
      path: args.values.path,
      brain: args.values.brain,
      metadata: Object.keys(note.metadata).length ? note.metadata : undefined,
    },
    { spec: REMEMBER_SPEC, renames: { tags: "tags (front matter and --tag)" } },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    // The file's own lines: the service would otherwise check the content handed to it.
    const doc = await runtime.service.remember(CLI_CALLER, input, { warnings: note.warnings });
    if (args.values.json) ctx.out.json(doc);
    else {ctx.out.line(
        `remembered ${doc.path} (id ${doc.id}, version ${doc.version}, ${doc.byte_size} bytes)`,
      );}
    // Stored all the same: said on stderr, the exit code stays 0.
    for (const w of doc.warnings ?? []) ctx.out.warn(`warning: ${name}:${w.line}: ${w.message}`);
    return 0;
  });
}

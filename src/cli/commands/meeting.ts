/** @module `engram meeting`: meeting notes or a transcript turned into structure, optionally stored. */
import { EngramError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { extractMeeting, type MeetingResult } from "../../core/synthesis/meetings.ts";
import { actionItemText, meetingHeading } from "../../core/synthesis/item_text.ts";
import { MeetingFields } from "../../core/synthesis/synthesis_schemas.ts";
import { decodeUtf8 } from "../../ingest/formats.ts";
import {
  BRAIN_OPTION,
  commandInput,
  type CommandSpec,
  configFlags,
  parseOrHelp,
  usageError,
} from "../args.ts";
import type { CommandContext } from "../context.ts";
import { readInputFile } from "../input_file.ts";
import type { Output } from "../output.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram meeting`. */
export const MEETING_SPEC: CommandSpec = {
  name: "meeting",
  usage: "engram meeting (FILE | - | --document ID) [--title T] [--store] [--brain SLUG] [--json]",
  summary:
    "Read meeting notes or a transcript — a file, stdin with -, or a stored document — into title, date, attendees, decisions, action items (owner, due) and open questions. --store also saves it as a note under /memory/project/meetings/ linked to its source.",
  options: {
    document: {
      type: "string",
      help: "ID  a stored document's id or brain path instead of a file",
    },
    title: { type: "string", help: "T  the meeting's title (else read from the notes)" },
    store: { type: "boolean", help: "store the result as a note linked to its source" },
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print the result as JSON" },
  },
  positionals: [0, 1],
};

/** Reads the meeting and prints what it produced. */
export async function meetingCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MEETING_SPEC, ctx.out);
  if (!args) return 0;
  const file = args.positionals[0];
  const document = args.values.document as string | undefined;
  if ((file === undefined) === (document === undefined)) {
    throw usageError(MEETING_SPEC, "give a FILE, - for stdin, or --document ID (exactly one)");
  }
  const fields = commandInput(
    MeetingFields,
    {
      brain: args.values.brain,
      title: args.values.title,
      store: args.values.store === true,
    },
    { spec: MEETING_SPEC },
  );
  const content = file === undefined ? undefined : await readText(file, ctx);
  if (content !== undefined && content.trim() === "") {
    throw new EngramError("invalid_argument", `${file === "-" ? "stdin" : file} holds no text`);
  }
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const result = await extractMeeting(
      { service: runtime.service, model: runtime.providers.background() },
      CLI_CALLER,
      { ...fields, ...(content !== undefined ? { content } : { document }) },
    );
    if (args.values.json) ctx.out.json(result);
    else printMeeting(ctx.out, result);
    return 0;
  });
}

function printMeeting(out: Output, r: MeetingResult): void {
  out.line(out.bold(meetingHeading(r)));
  if (r.attendees.length) out.line(`attendees: ${r.attendees.join(", ")}`);
  const section = (title: string, items: string[]) => {
    out.line("");
    out.line(`${title}:${items.length ? "" : " none"}`);
    for (const item of items) out.line(`  - ${item.replace(/\s+/g, " ")}`);
  };
  section("decisions", r.decisions);
  section("action items", r.action_items.map(actionItemText));
  section("open questions", r.open_questions);
  if (r.stored) {
    out.line("");
    out.line(`stored ${r.stored.path} (source ${r.source?.path})`);
  }
  if (r.not_stored) {
    out.line("");
    out.line(`not stored: ${r.not_stored}`);
  }
}

/** The text of FILE (relative to the working directory) or of stdin with `-`. */
async function readText(file: string, ctx: CommandContext): Promise<string> {
  const bytes = await readInputFile(file, {
    cwd: ctx.cwd,
    stdin: ctx.stdin,
    missingHint: "; for a stored document use --document",
    maxBytes: {
      bytes: LIMITS.ingestFileBytes,
      message: (size) =>
        `${file} is ${size} bytes; a meeting file is at most ${LIMITS.ingestFileBytes} bytes (25 MiB) — split it`,
    },
  });
  return decodeUtf8(bytes, file === "-" ? "stdin" : file);
}

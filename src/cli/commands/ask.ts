/** @module `engram ask`: a question answered from a brain, streamed, with its sources. */
import { ask } from "../../core/answering/ask.ts";
import type { AskCitationEvent } from "../../core/answering/citations.ts";
import { EngramError } from "../../core/errors.ts";
import type { MemoryService } from "../../core/memory_service.ts";
import { AskInput } from "../../core/sessions/session_schemas.ts";
import { commandInput, type CommandSpec, configFlags, intOption, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram ask`. */
export const ASK_SPEC: CommandSpec = {
  name: "ask",
  usage: "engram ask QUESTION [--brain SLUG] [--top-k N] [--strict] [--json]",
  summary:
    "Answer a question from a brain with citations. Uses the configured model providers; with none, the built-in extractive engine. The answer streams as it is written.",
  options: {
    brain: { type: "string", help: "SLUG  brain slug or id" },
    "top-k": { type: "string", help: "N  passages to retrieve, 1..50 (default 8)" },
    strict: {
      type: "boolean",
      help:
        'answer only what the passages state; when they do not answer it: "Not in memory: …" (grounded: false in --json)',
    },
    json: {
      type: "boolean",
      help: "print { answer, citations, retrieved, provider, grounded } as JSON (no streaming)",
    },
  },
  positionals: [1, 1],
};

/** Asks and prints the answer, then its sources. */
export async function askCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, ASK_SPEC, ctx.out);
  if (!args) return 0;
  const input = commandInput(
    AskInput,
    {
      query: args.positionals[0],
      brain: args.values.brain,
      top_k: intOption(ASK_SPEC, args.values, "top-k"),
      strict: Boolean(args.values.strict),
    },
    { spec: ASK_SPEC },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const json = Boolean(args.values.json);
    const result = await ask(
      { service: runtime.service, model: runtime.providers.background() },
      CLI_CALLER,
      input,
      { onDelta: json ? undefined : (delta) => ctx.out.write(delta) },
    );
    if (json) {
      ctx.out.json(result);
      return 0;
    }
    ctx.out.line("");
    // Numbered as the answer's [n] markers number them: by retrieval rank.
    const rank = new Map(result.retrieved.map((r, i) => [r.chunk_id, i + 1]));
    const cited = new Map<number, AskCitationEvent>();
    for (const c of result.citations) {
      const n = rank.get(c.chunk_id);
      if (n !== undefined && !cited.has(n)) cited.set(n, c);
    }
    if (cited.size) ctx.out.line("");
    // Several cited passages often come from one document: read each document once.
    const names = new Map<string, Promise<string>>();
    for (const [n, c] of [...cited].sort(([a], [b]) => a - b)) {
      if (!names.has(c.document_id)) {
        names.set(
          c.document_id,
          sourceName(runtime.service, { documentId: c.document_id, brainId: result.brain_id }),
        );
      }
      const name = await names.get(c.document_id)!;
      ctx.out.line(`[${n}] ${name}`);
      ctx.out.line(ctx.out.dim(`    "${c.quote.replace(/\s+/g, " ").slice(0, 160)}"`));
    }
    return 0;
  });
}

/** "Title — /path" for a cited document; its id if it is gone (forgotten since the answer). */
async function sourceName(
  service: MemoryService,
  o: { documentId: string; brainId: string },
): Promise<string> {
  try {
    const doc = await service.get(CLI_CALLER, { id: o.documentId, brain: o.brainId });
    return `${doc.title} — ${doc.path}`;
  } catch (err) {
    if (err instanceof EngramError && err.code === "not_found") return o.documentId;
    throw err;
  }
}

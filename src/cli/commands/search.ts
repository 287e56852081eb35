/** @module `engram search`: full-text search from a script or a terminal. */
import { SearchInput } from "../../core/schemas.ts";
import { commandInput, type CommandSpec, configFlags, intOption, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram search`. */
export const SEARCH_SPEC: CommandSpec = {
  name: "search",
  usage:
    "engram search QUERY [--brain SLUG] [--top-k N] [--scope S] [--sort S] [--group G] [--json]",
  summary: "Full-text search a brain. Any text is a safe query.",
  options: {
    brain: { type: "string", help: "SLUG  brain slug or id" },
    "top-k": { type: "string", help: "N  number of hits, 1..100 (default 10)" },
    scope: { type: "string", help: "S  all (default), global, project or agent" },
    sort: { type: "string", help: "S  relevance (default), recency or relevance_then_recency" },
    group: {
      type: "string",
      help: "G  document (default: the best chunk of each document) or chunk (every chunk)",
    },
    json: { type: "boolean", help: "print the search result as JSON" },
  },
  positionals: [1, 1],
};

/** Searches and prints hits. */
export async function searchCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, SEARCH_SPEC, ctx.out);
  if (!args) return 0;
  const input = commandInput(
    SearchInput,
    {
      query: args.positionals[0],
      brain: args.values.brain,
      top_k: intOption(SEARCH_SPEC, args.values, "top-k"),
      scope: args.values.scope,
      sort: args.values.sort,
      group: args.values.group,
    },
    { spec: SEARCH_SPEC },
  );
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const result = await runtime.service.search(CLI_CALLER, input);
    if (args.values.json) {
      ctx.out.json(result);
      return 0;
    }
    if (result.hits.length === 0) ctx.out.line(`no results for "${result.query}"`);
    result.hits.forEach((h, i) => {
      const snippet = (h.highlights.at(-1) ?? h.content).replace(/\s+/g, " ").slice(0, 200);
      const more = h.more_chunks ? `  +${h.more_chunks} more chunk(s)` : "";
      ctx.out.line(
        `${ctx.out.bold(`${i + 1}. ${h.title}`)}  ${
          ctx.out.dim(`${h.path}  score ${h.score.toFixed(2)}${more}`)
        }`,
      );
      ctx.out.line(`   ${snippet}`);
    });
    return 0;
  });
}

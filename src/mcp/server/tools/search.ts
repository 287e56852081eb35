/** @module memory_search. */
import { SearchInput } from "../../../core/schemas.ts";
import type { SearchResult } from "../../../core/memory_service.ts";
import { SearchOutputSchema } from "../output_schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

/** Text summary: the top five hits as `#N score=S path` and the first 320 characters. */
export function searchSummary(r: SearchResult): string {
  if (r.hits.length === 0) return `No results for "${r.query}".`;
  return r.hits.slice(0, 5).map((h, i) =>
    `#${i + 1} score=${h.score.toFixed(3)} ${h.path}\n${h.content.slice(0, 320)}`
  )
    .join("\n\n");
}

/** Full-text search with citations. */
export const memorySearch = defineTool({
  name: "memory_search",
  title: "Search memory",
  tier: "read",
  description:
    "Full-text search over a brain: keywords or a question (its function words are ignored); title and heading matches rank higher. One hit per document (its best chunk; more_chunks counts the others) unless group: chunk. Any text is a safe query: words match literally, a trailing * is a prefix, double quotes make a phrase. scope narrows to /memory/global|project|agent/.",
  input: SearchInput,
  output: SearchOutputSchema,
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.search(ctx.caller, args),
  summary: searchSummary,
  brainOf: (r) => r.brain_id,
});

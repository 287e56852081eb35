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
    "Full-text search over a brain's documents; a question works as well as keywords (its function words are ignored; notes holding more of its words rank first, then by BM25 with title and headings weighing more than body). Returns one hit per document by default (its best chunk, with more_chunks: how many more of its chunks matched); group: chunk returns every matching chunk. Each hit has path, document_id, chunk_id and highlights. Any text is a safe query: words are matched literally, a trailing * is a prefix, double quotes make a phrase. scope narrows to /memory/global|project|agent/.",
  input: SearchInput,
  output: SearchOutputSchema,
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.search(ctx.caller, args),
  summary: searchSummary,
  brainOf: (r) => r.brain_id,
});

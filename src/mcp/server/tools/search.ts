/** @module memory_search. */
import { SearchInput } from "../../../core/schemas.ts";
import type { SearchResult } from "../../../core/memory_service.ts";
import { defineTool, READ_ONLY } from "../tool.ts";
import { provenanceLine } from "./documents.ts";

/**
 * Text summary: the top five hits as `#N score=S path`, where a compiled one came from, and the
 * first 320 characters.
 */
export function searchSummary(r: SearchResult): string {
  if (r.hits.length === 0) return `No results for "${r.query}".`;
  return r.hits.slice(0, 5).map((h, i) =>
    `#${i + 1} score=${h.score.toFixed(3)} ${h.path}${
      h.provenance ? `\n${provenanceLine(h.provenance)}` : ""
    }\n${h.content.slice(0, 320)}`
  )
    .join("\n\n");
}

/** Full-text search with citations. */
export const memorySearch = defineTool({
  name: "memory_search",
  title: "Search memory",
  tier: "read",
  description:
    "Full-text search over a brain: keywords or a question (its function words are ignored); title and heading matches rank higher. One hit per document (its best chunk; more_chunks counts the others) unless group: chunk. Any text is a safe query: words match literally, a trailing * is a prefix, double quotes make a phrase. scope narrows to /memory/global|project|agent/. Each hit has source and provenance (null unless compiled from an upstream resource: then its text is the upstream's, not the user's).",
  input: SearchInput,
  output: (o) => o.SearchOutputSchema,
  annotations: READ_ONLY,
  run: (ctx, args) => ctx.service.search(ctx.caller, args),
  summary: searchSummary,
  brainOf: (r) => r.brain_id,
});

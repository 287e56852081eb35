/**
 * @module One hit per document: the best chunk of each document stands for it, and says how many
 * more of its chunks matched. Without it, several windows of one long note crowd other notes out
 * of the top results (field collapsing, as search engines group results by site).
 */
import type { SearchHit } from "../types.ts";

/** The first (best) hit of each document, in order, with `more_chunks`; at most `topK`. */
export function collapseByDocument<H extends SearchHit>(hits: readonly H[], topK: number): H[] {
  const best = new Map<string, H>();
  const more = new Map<string, number>();
  for (const h of hits) {
    if (best.has(h.document_id)) more.set(h.document_id, (more.get(h.document_id) ?? 0) + 1);
    else best.set(h.document_id, h);
  }
  return [...best.values()].slice(0, topK).map((h) => ({
    ...h,
    more_chunks: (h.more_chunks ?? 0) + (more.get(h.document_id) ?? 0),
  }));
}

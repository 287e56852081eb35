/**
 * @module memory_recall: search shaped by a session. The session's recent messages give context
 * words; the query's own hits are re-ranked by fusing their rank for the query with their rank for
 * that context (reciprocal rank fusion), so of two documents that answer the query, the one the
 * conversation is about comes first. Only documents matching the query are returned; like
 * memory_search, one hit per document unless `group` is `chunk`.
 */
import type { MemoryService, SearchResult } from "../memory_service.ts";
import type { SessionStore } from "../ports/session_store.ts";
import { fuseRanks } from "../search/rrf.ts";
import { collapseByDocument } from "../search/search_collapse.ts";
import type { RecallArgs } from "./session_schemas.ts";
import { requireSession } from "./sessions.ts";
import { STOPWORDS } from "../text/terms.ts";
import type { CallerContext, SourcedHit, StoredMessage } from "../types.ts";

/** How many recent messages shape the ranking. */
const CONTEXT_MESSAGES = 12;
/** How many context words are searched. */
const CONTEXT_TERMS = 16;
/** Query candidates considered for re-ranking. */
const CANDIDATES = 50;
/** A superseded fact still matches, but below current knowledge. */
const SUPERSEDED_WEIGHT = 0.5;

/** memory_recall with a session. */
export interface RecallResult {
  chunks: SourcedHit[];
  query: string;
  brain_id: string;
  session_id: string;
  /** The context words taken from the session, most weighty first. */
  session_terms: string[];
  took_ms: number;
}

/** Recall for a query; with `session_id`, ranked by the session's recent messages. */
export async function recall(
  deps: { service: MemoryService; sessions: SessionStore },
  caller: CallerContext,
  args: RecallArgs,
): Promise<RecallResult | SearchResult> {
  const { service } = deps;
  const scope = args.scope ?? "all";
  if (args.session_id === undefined) {
    return await service.search(caller, {
      query: args.query,
      brain: args.brain,
      top_k: args.top_k,
      scope,
      sort: "relevance",
      group: args.group,
    });
  }
  const started = performance.now();
  const brain = await service.brain(caller, args.brain);
  const session = await requireSession(deps.sessions, brain, args.session_id);
  const recent = await deps.sessions.listMessages(session.id, { last: CONTEXT_MESSAGES });
  const contextTerms = sessionTerms(recent, new Set(words(args.query)));
  const search = (text: string) =>
    service.searchHits({
      brainId: brain.id,
      text,
      topK: CANDIDATES,
      scope,
      sort: "relevance",
      group: "chunk",
    });
  const queryHits = await search(args.query);
  const contextHits = contextTerms.length ? await search(contextTerms.join(" ")) : [];
  const inQuery = new Set(queryHits.map((h) => h.chunk_id));
  const fused = fuseRanks<SourcedHit>([
    { name: "query", items: queryHits },
    { name: "session", items: contextHits.filter((h) => inQuery.has(h.chunk_id)) },
  ], (h) => h.chunk_id);
  const ranked = fused
    .map(({ item, score, ranks }) => {
      const weight = item.metadata.status === "superseded" ? SUPERSEDED_WEIGHT : 1;
      return {
        ...item,
        score: Math.round(score * weight * 1e6) / 1e6,
        component_scores: {
          query: item.score,
          query_rank: ranks.query,
          ...(ranks.session ? { session_rank: ranks.session } : {}),
        },
      };
    })
    .sort((a, b) => b.score - a.score);
  const chunks = (args.group ?? "document") === "document"
    ? collapseByDocument(ranked, args.top_k)
    : ranked.slice(0, args.top_k);
  return {
    chunks,
    query: args.query,
    brain_id: brain.id,
    session_id: session.id,
    session_terms: contextTerms,
    took_ms: Math.round(performance.now() - started),
  };
}

/** Lowercase words without function words. Unstemmed: FTS stems them itself. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

/** Words of the recent messages, later messages weighing more, minus the query's own words. */
function sessionTerms(messages: StoredMessage[], queryTerms: Set<string>): string[] {
  const weight = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === "system") return;
    const w = (i + 1) / messages.length;
    for (const t of new Set(words(m.content))) {
      if (queryTerms.has(t) || t.length < 3 || /^\d+$/.test(t)) continue;
      weight.set(t, (weight.get(t) ?? 0) + w);
    }
  });
  return [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, CONTEXT_TERMS)
    .map(([t]) => t);
}

/**
 * @module From a candidate chunk to a hit, the same on both backends once each has found its
 * candidates: which searched terms occur in which field (the ranking's field weights), and the hit
 * as returned with its highlights (docs/architecture.md#postgresql-search).
 */
import type { QueryPlan } from "../../../core/search/query_plan.ts";
import {
  BODY,
  HEADINGS,
  scoreCandidates,
  type Scored,
  TITLE,
} from "../../../core/search/search_ranking.ts";
import type { SearchHit, SearchQuery } from "../../../core/types.ts";
import { markSpans, snippet } from "./highlights.ts";
import { findTerms, type TermPattern, termsIn } from "./term_match.ts";

/** The texts of a candidate chunk, as both backends' candidate rows hold them. */
export interface ChunkTexts {
  chunk_id: string;
  document_id: string;
  indexed_title: string;
  headings: string;
  body: string;
  title: string;
  path: string;
  metadata: string;
  updated_at: string;
  brain_id: string;
}

/** Per field, whether each searched term occurs there. */
interface Found {
  title: boolean[];
  headings: boolean[];
  body: boolean[];
}

/**
 * The candidates scored (their BM25 given, one per row, and the fields each searched term occurs
 * in) and ordered by `q.sort`, at most `q.topK` as hits; `unmatched`: the searched terms (by index)
 * no candidate holds.
 */
export function rankHits(
  rows: readonly ChunkTexts[],
  o: { plan: QueryPlan; q: SearchQuery; patterns: TermPattern[]; bm25: readonly number[] },
): { hits: SearchHit[]; unmatched: Set<number> } {
  const { plan, q, patterns } = o;
  const found = rows.map((r) => find(r, patterns));
  const scored = scoreCandidates(
    plan,
    rows.map((_, i) => ({
      bm25: o.bm25[i],
      fields: patterns.map((_, t) => fieldsOf(found[i], t)),
    })),
  );
  const order = rows.map((_, i) => i);
  const updated = (i: number) => rows[i].updated_at;
  if (q.sort === "recency") {
    // Stable: equal timestamps keep the SQL order (newest write first).
    order.sort((a, b) => updated(b).localeCompare(updated(a)));
  } else if (q.sort === "relevance_then_recency") {
    const band = (i: number) => Number(scored[i].score.toPrecision(2));
    order.sort((a, b) => band(b) - band(a) || updated(b).localeCompare(updated(a)));
  } else {
    order.sort((a, b) => scored[b].score - scored[a].score);
  }
  const unmatched = new Set(
    patterns.map((_, t) => t).filter((t) => found.every((f) => fieldsOf(f, t) === 0)),
  );
  return {
    hits: order.slice(0, q.topK).map((i) => toHit(rows[i], patterns, scored[i])),
    unmatched,
  };
}

/** Where in the chunk each searched term occurs. */
function find(r: ChunkTexts, patterns: TermPattern[]): Found {
  return {
    title: termsIn(r.indexed_title, patterns),
    headings: termsIn(r.headings, patterns),
    body: termsIn(r.body, patterns),
  };
}

/** The fields (TITLE | HEADINGS | BODY) that hold searched term `term`. */
function fieldsOf(f: Found, term: number): number {
  return (f.title[term] ? TITLE : 0) | (f.headings[term] ? HEADINGS : 0) |
    (f.body[term] ? BODY : 0);
}

/** The hit as returned, its highlights made now that it is returned. */
function toHit(r: ChunkTexts, patterns: TermPattern[], s: Scored): SearchHit {
  const highlights: string[] = [];
  const title = findTerms(r.title, patterns);
  if (title.length > 0) highlights.push(markSpans(r.title, title));
  const body = snippet(r.body, findTerms(r.body, patterns));
  if (body !== null) highlights.push(body);
  return {
    score: round(s.score),
    path: r.path,
    content: r.body,
    document_id: r.document_id,
    chunk_id: r.chunk_id,
    title: r.title,
    brain_id: r.brain_id,
    metadata: JSON.parse(r.metadata),
    highlights,
    heading_path: r.headings ? r.headings.split(" › ") : [],
    updated_at: r.updated_at,
    component_scores: Object.fromEntries(
      Object.entries(s.components).map(([k, v]) => [k, round(v)]),
    ),
  };
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

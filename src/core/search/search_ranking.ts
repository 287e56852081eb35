/**
 * @module Backend-neutral ranking of candidate chunks. A full-text index supplies, per candidate,
 * its BM25 score and which of the query's searched terms it holds in which field; this module
 * turns those into one score:
 *
 *   score = COVERAGE_WEIGHT (10) × coverage + bm25 + fields + name
 *
 * - coverage (0..1): the share of the query's terms the chunk holds, each term weighted by its
 *   IDF within the candidate pool, log((P + 1) / (p_t + 0.5)) for a pool of P candidates of which
 *   p_t hold it. Coordination level matching (Salton & McGill, "Introduction to Modern Information
 *   Retrieval", 1983) with IDF weights: a chunk holding more of a question's distinctive words
 *   ranks above a short chunk repeating one of them, which BM25 alone lets win. The weights come
 *   from the pool the index returned, so no backend has to supply document frequencies.
 * - bm25: BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and
 *   Beyond") with the index's field weights.
 * - fields (0..1): the share of terms found in the title, headings and body, weighted 0.5/0.3/0.2;
 *   it keeps a tiny brain ordered where BM25's IDF is near zero.
 * - name: NAME_IN_TITLE_BONUS when a name of the query (query_plan.ts) is in the chunk's title,
 *   which says whom or what a note is about.
 *
 * Measured on LoCoMo conversations 0–4 (bench/RESULTS.md): adding a share of the adjacent chunks'
 * relevance (neighbouring-chunk context) lowered session-level R@1 and R@5, so it is not used.
 */
import type { QueryPlan } from "./query_plan.ts";

/** Field bits of a term match. */
export const TITLE = 1;
/** The chunk's heading path. */
export const HEADINGS = 2;
/** The chunk's text. */
export const BODY = 4;

/** Weights of the field bonus (title, headings, body); they sum to 1. */
const FIELD_WEIGHTS = [0.5, 0.3, 0.2] as const;
/** Weight of the coverage share against BM25, whose scores mostly fall between 0 and 15: holding
 * more of the query outweighs most BM25 differences. */
const COVERAGE_WEIGHT = 10;
/** Relevance added when a name of the query is in the chunk's title, in BM25 units. */
const NAME_IN_TITLE_BONUS = 2;

/** One candidate chunk as the index saw it. */
export interface Candidate {
  /** BM25 with the index's field weights; higher is better, 0 or more. */
  bm25: number;
  /** Per searched term (plan.searched order): the field bits it matched, 0 when absent. */
  fields: number[];
}

/** A candidate's score and its parts. */
export interface Scored {
  score: number;
  components: Record<string, number>;
}

/** Scores candidates (same order as given). */
export function scoreCandidates(plan: QueryPlan, candidates: Candidate[]): Scored[] {
  const n = Math.max(1, plan.searched.length);
  const pool = candidates.length;
  const idf = plan.searched.map((_, t) =>
    Math.log((pool + 1) / (candidates.filter((c) => c.fields[t] !== 0).length + 0.5))
  );
  const idfTotal = idf.reduce((a, b) => a + b, 0) || 1;
  const names = plan.searched.map((t) => t.role === "name");
  return candidates.map((c) => {
    const share = (bit: number) => c.fields.filter((f) => f & bit).length / n;
    const fields = FIELD_WEIGHTS[0] * share(TITLE) + FIELD_WEIGHTS[1] * share(HEADINGS) +
      FIELD_WEIGHTS[2] * share(BODY);
    const coverage = c.fields.reduce((sum, f, t) => sum + (f ? idf[t] : 0), 0) / idfTotal;
    const name = c.fields.some((f, t) => names[t] && f & TITLE) ? NAME_IN_TITLE_BONUS : 0;
    return {
      score: COVERAGE_WEIGHT * coverage + c.bm25 + fields + name,
      components: { coverage, bm25: c.bm25, fields, ...(name ? { name } : {}) },
    };
  });
}

/**
 * @module Ranked chunk search over SQLite FTS5, in one ranked MATCH.
 *
 * The query's searched terms (core/query_plan.ts: content words and names; function words only
 * when nothing else is left, and then all of them first) are OR'd into one FTS5 expression. FTS5
 * scores the matches with the weighted BM25 and SQLite keeps a pool a little wider than asked,
 * with the pool's texts, in the same statement (fts_candidates.ts, which also bounds the work);
 * the terms each candidate holds are found in JavaScript (term_match.ts) and the backend-neutral
 * rules of core/search_ranking.ts order them. Highlights are made for the returned hits only: no
 * second MATCH over the pool, no highlight() or snippet().
 */
import type { Prepares } from "../database.ts";
import { isFunctionWord, planQuery, type QueryPlan } from "../../../core/search/query_plan.ts";
import type { SearchHit, SearchQuery } from "../../../core/types.ts";
import { type CandidateRow, candidates, prefixWords } from "./fts_candidates.ts";
import { anyOf, ftsTerm, ftsWord } from "./fts_query.ts";
import { rankHits } from "../../shared/search/chunk_hits.ts";
import { fold, termPattern } from "../../shared/search/term_match.ts";
import { correction, indexHolds } from "./typo_correction.ts";

/**
 * Ranked chunks of the query's brain and scope, at most `q.topK`. A word that no candidate holds
 * may be mistyped: only then is the index asked whether it holds the word at all, and the search
 * run once more with the correction, so a query without typos pays nothing for them.
 */
export function searchChunks(db: Prepares, q: SearchQuery): SearchHit[] {
  const plan = planQuery(q.text);
  if (plan.searched.length === 0) return [];
  const first = rankedSearch(db, q, plan);
  const corrected = withCorrections(db, plan, first.unmatched);
  return corrected === plan ? first.hits : rankedSearch(db, q, corrected).hits;
}

/** One search for `plan`: its hits, and the searched terms that no candidate holds. */
function rankedSearch(
  db: Prepares,
  q: SearchQuery,
  plan: QueryPlan,
): { hits: SearchHit[]; unmatched: Set<number> } {
  const widened = plan.searched.map((t) =>
    t.kind === "prefix" ? prefixWords(db, fold(t.words[0])) : []
  );
  // A prefix term that starts no indexed word matches nothing: it is left out of the expression.
  const each = plan.searched.map((t, i) =>
    t.kind === "prefix" ? anyOf(widened[i].map(ftsWord)) : ftsTerm(t)
  );
  const patterns = plan.searched.map((t, i) => termPattern(t, widened[i]));
  const onlyFunction = plan.searched.every((t) => t.role === "function");
  // A quoted phrase of function words ("to the") is searched as typed, yet is as unselective as
  // the words alone: neither is ranked by BM25 (fts_candidates.ts).
  const unranked = plan.searched.every((t) => t.words.every(isFunctionWord));
  const phrases = plan.searched.reduce(
    (n, t, i) => n + (t.kind === "prefix" ? widened[i].length : 1),
    0,
  );
  let rows: CandidateRow[] = [];
  for (const terms of attempts(plan, each, onlyFunction)) {
    rows = candidates(db, q, { terms, phrases, unranked });
    if (rows.length > 0) break;
  }
  const bm25 = rows.map((r) => Math.max(0, -r.rank));
  return rankHits(rows, { plan, q, patterns, bm25 });
}

/**
 * The plan with each mistyped word read as the nearest word the index holds (typo_correction.ts):
 * a single unquoted word of letters, among those no candidate held, that matches nothing at all.
 * Quoted text is searched as typed.
 */
function withCorrections(db: Prepares, plan: QueryPlan, unmatched: Set<number>): QueryPlan {
  let changed = false;
  const searched = plan.searched.map((t, i) => {
    if (
      !unmatched.has(i) || t.kind !== "word" || t.required || t.role === "function" ||
      /\p{N}/u.test(t.words[0])
    ) {
      return t;
    }
    if (indexHolds(db, ftsTerm(t))) return t;
    const word = correction(db, t.words[0]);
    if (word === null) return t;
    changed = true;
    return { ...t, words: [word] };
  });
  return changed ? { ...plan, searched } : plan;
}

/**
 * The match expressions to try in turn, each a list of terms to OR. Quoted terms must match (the
 * others then only rank: FTS5 counts every phrase of the expression in BM25). A query of function
 * words alone ("what is the") matches nearly everything word by word, so all of them first.
 */
function attempts(
  plan: QueryPlan,
  terms: (string | null)[],
  onlyFunction: boolean,
): string[][] {
  const each = terms.filter((t) => t !== null);
  if (each.length === 0) return [];
  const required = terms.filter((t, i) => t !== null && plan.searched[i].required);
  if (required.length > 0) {
    const must = required.join(" AND ");
    return [[required.length < each.length ? `${must} AND (${each.join(" OR ")})` : must]];
  }
  return onlyFunction && each.length > 1 ? [[each.join(" AND ")], each] : [each];
}

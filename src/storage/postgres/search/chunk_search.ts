/**
 * @module Ranked chunk search over PostgreSQL's full-text index: the same plan, ranking and
 * highlights as SQLite's (src/storage/sqlite/search/chunk_search.ts), over a `tsvector` column.
 *
 * The query's searched terms (core/query_plan.ts) become `tsquery`s the server builds from their
 * words alone (term_queries.ts); one statement gives each term's match count and the index size
 * (candidates.ts `termStats`), a second the pool of candidates with their texts. In TypeScript, as
 * on SQLite, the terms each candidate holds are found (term_match.ts), its BM25 computed (bm25.ts)
 * and the backend-neutral rules of core/search_ranking.ts order them; highlights are made for the
 * returned hits only. A word that matches nothing anywhere may be mistyped: only then is the word
 * list asked for the nearest word (vocabulary.ts) and the search run again with it.
 */
import { isFunctionWord, planQuery, type QueryPlan } from "../../../core/search/query_plan.ts";
import type { SearchHit, SearchQuery } from "../../../core/types.ts";
import { rankHits } from "../../shared/search/chunk_hits.ts";
import { fold, type TermPattern, termPattern } from "../../shared/search/term_match.ts";
import type { Queries } from "../connection.ts";
import { bm25Scores } from "./bm25.ts";
import { type CandidateRow, candidates, type RankedTerm, termStats } from "./candidates.ts";
import { anyOf, attempts, termText } from "./term_queries.ts";
import { correction, prefixWords, type Vocabulary } from "./vocabulary.ts";

/** One alternative of the expression: a word or phrase term, or one word a prefix widened to. */
interface Alternative {
  /** The searched term it belongs to. */
  term: number;
  text: string;
  pattern: TermPattern;
  /** The chunks holding it, when the word list says (a prefix's words). */
  docs: number | null;
}

/** One search: its hits, the searched terms no candidate holds, and each term's match count. */
interface Ranked {
  hits: SearchHit[];
  unmatched: Set<number>;
  /** Per searched term, the chunks of the index matching it (prefix terms: their words'). */
  docs: number[];
}

/**
 * Ranked chunks of the query's brain and scope, at most `q.topK`; `sql` runs the reads (a unit of
 * work's transaction, or the pool), `vocabulary` is drained before its list is read.
 */
export async function searchChunks(
  sql: Queries,
  q: SearchQuery,
  vocabulary: Vocabulary,
): Promise<SearchHit[]> {
  const plan = planQuery(q.text);
  if (plan.searched.length === 0) return [];
  const first = await rankedSearch(sql, q, { plan, vocabulary });
  const corrected = await withCorrections(sql, plan, { first, vocabulary });
  return corrected === plan
    ? first.hits
    : (await rankedSearch(sql, q, { plan: corrected, vocabulary })).hits;
}

async function rankedSearch(
  sql: Queries,
  q: SearchQuery,
  o: { plan: QueryPlan; vocabulary: Vocabulary },
): Promise<Ranked> {
  const { plan } = o;
  if (plan.searched.some((t) => t.kind === "prefix")) await o.vocabulary.drain();
  const listed: { word: string; docs: number }[][] = [];
  for (const t of plan.searched) {
    listed.push(t.kind === "prefix" ? await prefixWords(sql, fold(t.words[0])) : []);
  }
  const widened = listed.map((words) => words.map((w) => w.word));
  const alternatives = plan.searched.flatMap((t, term): Alternative[] =>
    t.kind === "prefix"
      ? listed[term].map((w) => ({
        term,
        text: w.word,
        pattern: termPattern({ words: [w.word], kind: "word", role: t.role }),
        docs: w.docs,
      }))
      : [{ term, text: termText(t), pattern: termPattern(t), docs: null }]
  );
  // A listed word's count is the list's (of the word as written, close to its stem's).
  const stats = await termStats(
    sql,
    alternatives.map((a) => a.text),
    alternatives.map((a) => a.docs),
  );
  const ofTerm = (term: number) => alternatives.flatMap((a, k) => a.term === term ? [k] : []);
  // A prefix that starts no listed word, or words that give no lexeme, match nothing: left out.
  const each = plan.searched.map((_, term) => anyOf(ofTerm(term).map((k) => stats.terms[k].query)));
  const docs = plan.searched.map((_, term) =>
    ofTerm(term).reduce((n, k) => n + stats.terms[k].docs, 0)
  );
  const idf = (n: number) =>
    Math.max(1e-6, Math.log((Math.max(stats.chunks, n) - n + 0.5) / (n + 0.5)));
  // Two words may stem alike ("runs", "running"): each query is ranked once.
  const ranked: RankedTerm[] = [
    ...new Map(stats.terms.filter((s) => s.query !== "").map((s) => [s.query, s])).values(),
  ].map((s) => ({ query: s.query, docs: s.docs, idf: idf(s.docs) }));
  const patterns = plan.searched.map((t, i) => termPattern(t, widened[i]));
  const onlyFunction = plan.searched.every((t) => t.role === "function");
  // A quoted phrase of function words ("to the") is as unselective as the words alone: unranked.
  const unranked = plan.searched.every((t) => t.words.every(isFunctionWord));
  let rows: CandidateRow[] = [];
  for (const terms of attempts(plan.searched, each, onlyFunction)) {
    rows = await candidates(sql, q, { terms, ranked, unranked });
    if (rows.length > 0) break;
  }
  const bm25 = unranked ? rows.map(() => 0) : bm25Scores(
    rows,
    alternatives.map((a, k) => ({ pattern: a.pattern, docs: stats.terms[k].docs })),
    stats.chunks,
  );
  return { ...rankHits(rows, { plan, q, patterns, bm25 }), docs };
}

/**
 * The plan with each mistyped word read as the nearest listed word: a single unquoted word of
 * letters, among those no candidate held, that no chunk of the index matches. Quoted text is
 * searched as typed.
 */
async function withCorrections(
  sql: Queries,
  plan: QueryPlan,
  o: { first: Ranked; vocabulary: Vocabulary },
): Promise<QueryPlan> {
  const mistyped = plan.searched.map((t, i) =>
    o.first.unmatched.has(i) && t.kind === "word" && !t.required && t.role !== "function" &&
    !/\p{N}/u.test(t.words[0]) && o.first.docs[i] === 0
  );
  if (!mistyped.includes(true)) return plan;
  await o.vocabulary.drain();
  let changed = false;
  const searched = [];
  for (const [i, t] of plan.searched.entries()) {
    const word = mistyped[i] ? await correction(sql, t.words[0]) : null;
    if (word === null) {
      searched.push(t);
      continue;
    }
    changed = true;
    searched.push({ ...t, words: [word] });
  }
  return changed ? { ...plan, searched } : plan;
}

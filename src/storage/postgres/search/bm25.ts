/**
 * @module BM25 of a PostgreSQL search's candidate pool, computed in TypeScript from the candidates'
 * own texts, so the score core/search_ranking.ts adds up is in the units SQLite's FTS5 gives it.
 *
 * PostgreSQL has no BM25 (`ts_rank` has neither document frequencies nor saturation), so this is
 * FTS5's `bm25()` (Robertson & Zaragoza 2009) over the pool: for each phrase of the expression,
 * IDF = ln((N − n + 0.5) / (n + 0.5)) (at least 1e-6, as FTS5 floors it) with N the chunks of the
 * index and n those matching the phrase (both from the server), times
 * f·(k1 + 1) / (f + k1·(1 − b + b·|D| / avgdl)), where f is the phrase's hits weighted 5 in the
 * title, 2.5 in the headings and 1 in the body, and |D| the chunk's tokens. One difference: avgdl
 * is the pool's average length, not the whole index's, which PostgreSQL does not keep.
 */
import { findTerms, type TermPattern, TOKEN } from "../../shared/search/term_match.ts";

const K1 = 1.2;
const B = 0.75;
/** FTS5's column weights: title, headings, body. */
const WEIGHTS = [5, 2.5, 1] as const;

/** One phrase of the expression: its pattern and the number of chunks holding it. */
export interface Bm25Phrase {
  pattern: TermPattern;
  docs: number;
}

/** The three fields of a candidate, as indexed. */
export interface Bm25Fields {
  indexed_title: string;
  headings: string;
  body: string;
}

/** Each candidate's BM25 for `phrases`, given `chunks` in the whole index. */
export function bm25Scores(
  rows: readonly Bm25Fields[],
  phrases: readonly Bm25Phrase[],
  chunks: number,
): number[] {
  if (rows.length === 0 || phrases.length === 0) return rows.map(() => 0);
  const idf = phrases.map((p) => {
    const n = Math.min(p.docs, chunks);
    return Math.max(1e-6, Math.log((Math.max(chunks, n) - n + 0.5) / (n + 0.5)));
  });
  const patterns = phrases.map((p) => p.pattern);
  const stats = rows.map((r) => {
    const fields = [r.indexed_title, r.headings, r.body];
    const hits = phrases.map(() => 0);
    fields.forEach((text, f) => {
      for (const span of findTerms(text, patterns)) hits[span.term] += WEIGHTS[f];
    });
    return { hits, length: fields.reduce((n, text) => n + tokens(text), 0) };
  });
  const avgdl = Math.max(1, stats.reduce((n, s) => n + s.length, 0) / stats.length);
  return stats.map(({ hits, length }) =>
    hits.reduce((score, f, i) => {
      if (f === 0) return score;
      return score + idf[i] * (f * (K1 + 1)) / (f + K1 * (1 - B + B * length / avgdl));
    }, 0)
  );
}

/** Tokens of `text`, as the index's tokenizer cuts it. */
function tokens(text: string): number {
  let n = 0;
  const re = new RegExp(TOKEN.source, "gu");
  while (re.exec(text) !== null) n++;
  return n;
}

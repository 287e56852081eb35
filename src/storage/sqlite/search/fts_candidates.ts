/**
 * @module The candidate pool of a search, from SQLite FTS5 in one ranked MATCH: the best chunks of
 * a brain by FTS5's weighted BM25, with their texts.
 *
 * Bounded work: FTS5 computes BM25 for every row a query matches, about a microsecond each, so a
 * search for a word in half the notes of a large brain would cost tens of milliseconds. When a
 * query matches more than RANK_CAP chunks, terms that alone match more than RANK_CAP are left out
 * of the MATCH if rarer terms remain (their IDF is near zero, so they barely move BM25; the ranking
 * still counts them, see core/search_ranking.ts) — Luhn's upper cut-off (Luhn 1958), by document
 * frequency; and when every term is that common, only the newest RANK_CAP matches are ranked (fewer
 * when the expression has many phrases, see RANK_PHRASES) —
 * query-time index pruning in the spirit of Anh & Moffat (2006), with recency as the order, the
 * likelier-wanted end for a memory. A query of function words alone ("to be", "what is the") is not
 * ranked by BM25 at all: its words' IDF is near zero, and FTS5's bm25() reads every posting of
 * every phrase to count the rows holding it before it scores one row (4–7 ms for "to the" at 10k
 * notes, whatever the bound), so its newest matches are the pool.
 * Finding the bound costs one unranked scan of at most that many rowids (FTS5 walks its doclists
 * in rowid order without scoring).
 */
import type { SQLInputValue } from "node:sqlite";
import type { Prepares } from "../database.ts";
import { SCOPE_PREFIX } from "../../../core/limits.ts";
import type { SearchQuery } from "../../../core/types.ts";
import { indexForm } from "../../shared/search/term_match.ts";
import { isFunctionWord } from "../../../core/search/query_plan.ts";
import type { ChunkTexts } from "../../shared/search/chunk_hits.ts";

/** BM25 column weights: title, headings, body. A title match outranks a body match. */
const BM25_WEIGHTS = [5.0, 2.5, 1.0] as const;
/** The most matches one search ranks (see the module comment). */
export const RANK_CAP = 2000;
/**
 * BM25 costs about a microsecond per row per phrase of the expression, so the bound is on both:
 * RANK_CAP rows for up to RANK_PHRASES phrases, fewer rows for more (a prefix widened to 16 words
 * is 16 phrases: 500 rows).
 */
const RANK_PHRASES = 4;

/** At most this many whole words widen one prefix term. */
const PREFIX_WORDS = 16;
/** At most this many words of the word list are read for one prefix term. */
const PREFIX_WORDS_READ = 256;
/** Candidates re-ranked per hit asked for, and at least. */
const POOL_PER_HIT = 1;
const MIN_POOL = 40;
/** With several brains, the fast path over-fetches this many times the pool before the brain filter. */
const OVERFETCH = 4;

/** A candidate chunk with its texts; `rank` is FTS5's (negated weighted BM25). */
export interface CandidateRow extends ChunkTexts {
  rank: number;
}

const COLUMNS = `c.id AS chunk_id, c.document_id, c.title AS indexed_title, c.headings, c.body,
  d.title, d.path, d.metadata, d.updated_at, d.brain_id`;

/**
 * The whole words a prefix starts, from the unstemmed word list, most frequent first: at most
 * PREFIX_WORDS (Lucene's and Elasticsearch's `max_expansions`), one per stem (the index holds
 * "running" and "runs" as "run"), and function words only when nothing else starts so. The
 * search looks for these words rather than asking FTS5 for the prefix, which its porter tokenizer
 * would stem first (`plis*` → `pli*`), and which it answers by merging the doclists of every word
 * the prefix starts, three times a search (15–20 ms for `wou*` at 100k notes). fts5vocab reads a
 * word's chunk list to count it (about 12 µs a word at 100k notes), so only the first
 * PREFIX_WORDS_READ words of the prefix, in word order, are counted: a one-letter prefix would
 * otherwise read thousands (36 ms for `s*`).
 */
export function prefixWords(db: Prepares, folded: string): string[] {
  if (folded === "") return [];
  const words = (db.prepare(
    "SELECT term, doc FROM chunks_words_vocab WHERE term >= ? AND term < ? LIMIT ?",
  ).all(folded, folded + "\u{10FFFF}", PREFIX_WORDS_READ) as { term: string; doc: number }[])
    .filter((r) => r.term.startsWith(folded))
    .sort((a, b) => b.doc - a.doc)
    .map((r) => r.term);
  const content = words.filter((w) => !isFunctionWord(w));
  const stems = new Set<string>();
  return (content.length > 0 ? content : words).filter((w) => {
    const stem = indexForm(w);
    if (stems.has(stem)) return false;
    stems.add(stem);
    return true;
  }).slice(0, PREFIX_WORDS);
}

/**
 * The candidate pool for the per-term FTS5 expressions `terms` (OR'd). Relevance with no scope:
 * BM25 of the matches (within the bound) and SQLite's top-n sort, then the brain filter — called
 * explicitly rather than through `ORDER BY rank`, whose sort inside FTS5 scores every match
 * whatever the rowid bound, and is slower even without one. Exact unless other brains' chunks
 * crowded this brain's out, and then, as for a scope or recency, the joined query, which ranks
 * every match of the brain.
 */
export function candidates(
  db: Prepares,
  q: SearchQuery,
  o: { terms: string[]; phrases: number; unranked?: boolean },
): CandidateRow[] {
  const { terms } = o;
  const recency = q.sort === "recency";
  const pool = recency ? q.topK : Math.max(q.topK * POOL_PER_HIT, MIN_POOL);
  if (q.scope === "all" && !recency && !o.unranked) {
    const cap = Math.floor(RANK_CAP * Math.min(1, RANK_PHRASES / Math.max(1, o.phrases)));
    const { expr, bound } = bounded(db, terms, cap);
    const brains = (db.prepare("SELECT count(*) AS n FROM brains").get() as { n: number }).n;
    const fetch = brains > 1 ? pool * OVERFETCH : pool;
    const rows = db.prepare(
      `WITH ranked AS (
         SELECT rowid AS rid, bm25(chunks_fts, ${BM25_WEIGHTS.join(", ")}) AS rank FROM chunks_fts
          WHERE chunks_fts MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?
       )
       SELECT ranked.rank, ${COLUMNS}, (SELECT count(*) FROM ranked) AS fetched
         FROM ranked JOIN chunks c ON c.rowid = ranked.rid JOIN documents d ON d.id = c.document_id
        WHERE c.brain_id = ?
        ORDER BY ranked.rank LIMIT ?`,
    ).all(expr, bound, fetch, q.brainId, pool) as unknown as (CandidateRow & {
      fetched: number;
    })[];
    if (rows.length >= pool || (rows.length > 0 && rows[0].fetched < fetch)) return rows;
  }
  const params: SQLInputValue[] = [terms.join(" OR "), q.brainId];
  let scopeSql = "";
  if (q.scope !== "all") {
    scopeSql = "AND substr(d.path, 1, ?) = ?";
    const prefix = SCOPE_PREFIX[q.scope];
    params.push(prefix.length, prefix);
  }
  params.push(pool);
  // Equal timestamps (a bulk import) fall back to write order, newest first. Forgotten documents
  // have no chunks, so no deleted_at filter is needed.
  const rank = o.unranked ? "0" : `bm25(chunks_fts, ${BM25_WEIGHTS.join(", ")})`;
  const order = recency
    ? "d.updated_at DESC, d.rowid DESC, rank"
    : o.unranked
    ? "chunks_fts.rowid DESC"
    : "rank";
  return db.prepare(
    `SELECT ${rank} AS rank, ${COLUMNS}
       FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid
       JOIN documents d ON d.id = c.document_id
      WHERE chunks_fts MATCH ? AND c.brain_id = ? ${scopeSql}
      ORDER BY ${order}
      LIMIT ?`,
  ).all(...params) as unknown as CandidateRow[];
}

/** The expression to rank and the lowest rowid to rank (0: all), per the module comment. */
function bounded(db: Prepares, terms: string[], cap: number): { expr: string; bound: number } {
  const all = terms.join(" OR ");
  const whole = capRowid(db, all, cap);
  if (whole === null) return { expr: all, bound: 0 };
  // A term that matches nothing is not a rarer term to rank by: it would leave nothing to rank.
  const rare = terms.length > 1
    ? terms.filter((t) => capRowid(db, t, cap) === null && capRowid(db, t, 0) !== null)
    : [];
  if (rare.length === 0) return { expr: all, bound: whole };
  const expr = rare.join(" OR ");
  return { expr, bound: capRowid(db, expr, cap) ?? 0 };
}

/** The rowid of the match after the `cap` newest, or null when there are no more matches than that. */
function capRowid(db: Prepares, expr: string, cap: number): number | null {
  const row = db.prepare(
    "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
  ).get(expr, cap) as { rowid: number } | undefined;
  return row?.rowid ?? null;
}

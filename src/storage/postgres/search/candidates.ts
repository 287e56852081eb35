/**
 * @module The candidate pool of a PostgreSQL search: what each term matches across the index, and
 * the best chunks of a brain for an expression, with their texts, in one statement each.
 *
 * `termStats` asks the server for each term's `tsquery` (from `phraseto_tsquery`, see
 * term_queries.ts) and the number of chunks matching it, with the number of chunks in all: BM25's
 * document frequencies (bm25.ts), and whether a term is a typo. `candidates` ranks a brain's
 * matches with `ts_rank` (title A 1.0, headings B 0.5, body D 0.2: FTS5's 5 : 2.5 : 1), each
 * term's rank weighted by its BM25 IDF, and keeps a pool a little wider than asked; the pool is
 * scored again in TypeScript (chunk_search.ts). The work is bounded as SQLite bounds it
 * (fts_candidates.ts): when an expression matches more than RANK_CAP chunks of the brain, only the
 * newest RANK_CAP are ranked, and terms that alone match more than RANK_CAP chunks are left out of
 * the match when rarer terms remain. A query of function words alone is not ranked: its newest
 * matches are the pool.
 */
import type postgres from "postgres";
import { SCOPE_PREFIX } from "../../../core/limits.ts";
import type { SearchQuery } from "../../../core/types.ts";
import type { Queries } from "../connection.ts";
import { anyOf, type TsqueryText } from "./term_queries.ts";
import type { ChunkTexts } from "../../shared/search/chunk_hits.ts";

/** `ts_rank`'s weights, in its order {D, C, B, A}: body, (unused), headings, title. */
const RANK_WEIGHTS = "{0.2,0,0.5,1}";
/** The most matches one search ranks (fts_candidates.ts). */
export const RANK_CAP = 2000;
/** The cap is for up to this many alternatives; more alternatives rank fewer rows. */
const RANK_PHRASES = 4;
/** Candidates re-ranked per hit asked for, and at least. */
const POOL_PER_HIT = 1;
const MIN_POOL = 40;
/** Below this many chunks by the planner's estimate, they are counted exactly. */
const EXACT_COUNT_BELOW = 10_000;

/** What the index holds of a term. */
export interface TermStats {
  /** The term as the server normalised it; empty when its words gave no lexeme. */
  query: TsqueryText;
  /** Chunks (of every brain) matching it. */
  docs: number;
}

/** A candidate chunk with its texts; `rank` is the pool's order, not the score. */
export interface CandidateRow extends ChunkTexts {
  rank: number;
}

/**
 * Each text's `tsquery` and match count, and the number of chunks, in one statement; a text whose
 * count is already known (`known[i]`, a listed word's, see vocabulary.ts) is not counted again.
 */
export async function termStats(
  sql: Queries,
  texts: readonly string[],
  known: readonly (number | null)[] = [],
): Promise<{ terms: TermStats[]; chunks: number }> {
  // No term to match (a prefix that starts no word): nothing is asked.
  if (texts.length === 0) return { terms: [], chunks: 0 };
  // The chunks in all as the planner estimates them (rows per page at the last ANALYZE times the
  // pages now), which costs nothing; counted when few.
  const rows = await sql<{ query: string; docs: number; chunks: number }[]>`
    WITH estimate AS (
      SELECT CASE WHEN relpages > 0 AND reltuples > 0
                  THEN reltuples / relpages * (pg_relation_size(oid) / current_setting('block_size')::int)
                  ELSE 0 END AS n
        FROM pg_class WHERE oid = 'chunks'::regclass
    )
    SELECT q::text AS query,
           CASE WHEN numnode(q) = 0 THEN 0
                WHEN t.known IS NOT NULL THEN t.known
                ELSE (SELECT count(*) FROM chunks WHERE fts @@ q) END::int AS docs,
           (SELECT CASE WHEN e.n >= ${EXACT_COUNT_BELOW} THEN e.n
                        ELSE (SELECT count(*) FROM chunks) END
              FROM estimate e)::float8 AS chunks
      FROM unnest(${sql.array([...texts])}::text[],
                  ${sql.array(texts.map((_, i) => known[i] ?? -1))}::int[])
             WITH ORDINALITY AS u(text, known, i),
           LATERAL (SELECT u.text, nullif(u.known, -1) AS known, u.i) AS t,
           LATERAL phraseto_tsquery('engram', t.text) AS q
     ORDER BY t.i`;
  return { terms: rows.map((r) => ({ query: r.query, docs: r.docs })), chunks: rows[0].chunks };
}

/** One alternative of the expression to rank by: its query and IDF weight. */
export interface RankedTerm {
  query: TsqueryText;
  idf: number;
  docs: number;
}

/** Options of `candidates`. */
export interface CandidateOptions {
  /** Alternatives to OR (each a term's `tsquery`), or one required expression. */
  terms: TsqueryText[];
  /** Every alternative's query, IDF and match count, for the rank and the bound. */
  ranked: RankedTerm[];
  /** A query of function words alone: no rank, the newest matches. */
  unranked: boolean;
}

/**
 * The pool for the expression `o.terms` (OR'd): relevance ranks the newest RANK_CAP matches of
 * the brain (fewer with many alternatives) and keeps the best; recency takes the newest; a query
 * of function words alone takes the newest matches unranked.
 */
export async function candidates(
  sql: Queries,
  q: SearchQuery,
  o: CandidateOptions,
): Promise<CandidateRow[]> {
  const recency = q.sort === "recency";
  const pool = recency ? q.topK : Math.max(q.topK * POOL_PER_HIT, MIN_POOL);
  const cap = Math.floor(RANK_CAP * Math.min(1, RANK_PHRASES / Math.max(1, o.ranked.length)));
  // Every term here has a lexeme (attempts, term_queries.ts): the group is never null.
  const match = anyOf(o.terms)!;
  const expr = recency || o.unranked ? match : rarer(o.terms, o.ranked, cap) ?? match;
  const params: postgres.ParameterOrJSON<never>[] = [];
  const $ = (value: postgres.ParameterOrJSON<never>) => `$${params.push(value)}`;
  const prefix = q.scope === "all" ? null : SCOPE_PREFIX[q.scope];
  // Forgotten documents have no chunks: the documents are joined only for a scope's paths.
  const scope = prefix === null
    ? ""
    : `AND EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id
                      AND starts_with(d.path, ${$(prefix)}))`;
  // The rank of a row `m` carrying its `fts`: each alternative's ts_rank, weighted by its IDF.
  const rank = (m: string) =>
    o.unranked ? "0::float8" : `(
      SELECT coalesce(sum(r.idf * ts_rank('${RANK_WEIGHTS}'::float4[], ${m}.fts, r.q, 1)), 0)
        FROM unnest(${$(sql.array(o.ranked.map((r) => r.query)))}::tsquery[],
                    ${$(sql.array(o.ranked.map((r) => r.idf)))}::float8[]) AS r(q, idf))`;
  const matches = `
    SELECT c.seq, c.document_id, c.fts FROM chunks c
     WHERE c.fts @@ ${$(expr)}::tsquery AND c.brain_id = ${$(q.brainId)} ${scope}`;
  const columns = `c.id AS chunk_id, c.document_id, c.title AS indexed_title, c.headings, c.body,
    d.title, d.path, d.metadata, d.updated_at, d.brain_id`;
  let text: string;
  if (recency || o.unranked) {
    // Equal timestamps (a bulk import) fall back to write order, newest first. The rank is
    // computed for the rows returned only.
    const order = recency ? "d.updated_at DESC, d.seq DESC, c.seq DESC" : "c.seq DESC";
    text = `
      SELECT ${rank("c")}::float8 AS rank, ${columns}
        FROM (SELECT c.seq FROM (${matches}) c JOIN documents d ON d.id = c.document_id
               ORDER BY ${order} LIMIT ${$(pool)}) m
        JOIN chunks c ON c.seq = m.seq JOIN documents d ON d.id = c.document_id
       ORDER BY ${order}`;
  } else {
    // Only when the matches may be more than the cap are the newest picked (a sort of every
    // match); the terms' counts bound how many there can be.
    const bounded = o.ranked.reduce((n, r) => n + r.docs, 0) > cap
      ? `ORDER BY c.seq DESC LIMIT ${$(cap)}`
      : "";
    text = `
      SELECT ranked.rank, ${columns}
        FROM (SELECT m.seq, ${rank("m")} AS rank
                FROM (${matches} ${bounded}) m
               ORDER BY rank DESC, m.seq DESC LIMIT ${$(pool)}) ranked
        JOIN chunks c ON c.seq = ranked.seq JOIN documents d ON d.id = c.document_id
       ORDER BY ranked.rank DESC, c.seq DESC`;
  }
  // Not a prepared statement: the server plans it for these words. A plan made once for any
  // words (a prepared statement's generic plan) walks the chunks newest first, testing each,
  // which is right for a common word and reads the whole table for a rare one.
  return [...await sql.unsafe<CandidateRow[]>(text, params, { prepare: false })];
}

/**
 * The alternatives that alone match at most `cap` chunks, OR'd, when there are some and some
 * others match more (Luhn's upper cut-off, as SQLite's `bounded`); null to match them all.
 */
function rarer(terms: TsqueryText[], ranked: RankedTerm[], cap: number): TsqueryText | null {
  if (terms.length < 2) return null;
  const docs = new Map(ranked.map((r) => [r.query, r.docs]));
  const common = terms.filter((t) => (docs.get(t) ?? 0) > cap);
  if (common.length === 0) return null;
  const rare = terms.filter((t) => {
    const n = docs.get(t);
    return n !== undefined && n > 0 && n <= cap;
  });
  if (rare.length === 0) return null;
  return anyOf(rare);
}

/** @module Read queries for the SQLite store: ranked search, timeline, backlinks, tags, stats. */
import type { SQLInputValue } from "node:sqlite";
import type { Prepares } from "./database.ts";
import { SCOPE_PREFIX } from "../core/limits.ts";
import type {
  Backlink,
  BrainStats,
  DocumentRecord,
  SearchHit,
  SearchQuery,
  TagCount,
  TimelineEntry,
} from "../core/types.ts";
import { wikiKey } from "../core/markdown/links.ts";
import { ftsExpression, ftsTerms, prefixWord, withoutStopwords, withWords } from "./fts_query.ts";

/** BM25 column weights: title, headings, body. A title match outranks a body match. */
export const BM25_WEIGHTS = [5.0, 2.5, 1.0] as const;

/** At most this many whole words widen one prefix term. */
const PREFIX_WORDS = 16;

/** Weights of the field-coverage bonus (title, headings, body); they sum to 1. */
const COVERAGE_WEIGHTS = [0.5, 0.3, 0.2] as const;

const MARK_OPEN = "\u0002";
const MARK_CLOSE = "\u0003";
const DISPLAY_OPEN = "**";
const DISPLAY_CLOSE = "**";

interface HitRow {
  chunk_id: string;
  document_id: string;
  body: string;
  headings: string;
  title: string;
  path: string;
  metadata: string;
  updated_at: string;
  brain_id: string;
  rank: number;
  snip: string;
  title_hl: string;
  headings_hl: string;
  body_hl: string;
}

/**
 * Ranked chunks for a query. All terms must match; when that finds nothing, any term may match,
 * so a long natural-language question still finds the notes that share its key words.
 *
 * Score = BM25 (weighted by column) + a field-coverage bonus below 1: the share of query terms
 * found in the title, headings and body. FTS5 clamps BM25's IDF to ~0 for terms in half the
 * documents or more, which in a small brain flattens every score to 0; the bonus keeps ranking
 * meaningful there and only reorders near-ties in a large one.
 */
export function searchChunks(db: Prepares, q: SearchQuery): SearchHit[] {
  const terms = ftsTerms(q.text).map((t) => widenPrefix(db, t));
  for (const mode of terms.length > 1 ? ["and", "or"] as const : ["and"] as const) {
    const expr = ftsExpression(mode === "or" ? withoutStopwords(terms) : terms, mode);
    if (!expr) return [];
    const rows = runMatch(db, q, expr);
    if (rows.length > 0) return order(rows.map((r) => toHit(r, terms.length)), q);
  }
  return [];
}

/**
 * The index is porter-stemmed: it holds "running" as "run", so `runn*` alone misses it. The
 * unstemmed word list supplies the words the prefix starts, searched as whole (stemmed) words.
 */
function widenPrefix(db: Prepares, term: string): string {
  const word = prefixWord(term);
  if (word === null) return term;
  // Fold like the tokenizer (unicode61 remove_diacritics 2): lowercase, no combining marks.
  const key = word.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  if (key === "") return term;
  const words = db.prepare(
    "SELECT term FROM chunks_words_vocab WHERE term >= ? AND term < ? LIMIT ?",
  ).all(key, key + "\u{10FFFF}", PREFIX_WORDS)
    .map((r) => r.term as string)
    .filter((w) => w !== key && w.startsWith(key));
  return withWords(term, words);
}

/** The fast path over-fetches this many times the pool before filtering by brain. */
const OVERFETCH = 4;

/**
 * A candidate pool wider than top_k, re-ranked afterwards with the coverage bonus (and recency when
 * asked). Highlights are computed for the pool only, never for every match.
 */
function runMatch(db: Prepares, q: SearchQuery, expr: string): HitRow[] {
  const pool = Math.max(q.topK * 3, 30);
  if (q.scope === "all" && q.sort !== "recency") {
    // Fast path: FTS5 ranks on its own (its rank is the weighted BM25), then the brain filter. Exact
    // unless other brains' chunks crowded this brain's out of the over-fetch; then the full query.
    const rows = db.prepare(
      `WITH ranked AS (
         SELECT rowid AS rid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?
       ),
       pool AS (
         SELECT ranked.rid, ranked.rank FROM ranked JOIN chunks c ON c.rowid = ranked.rid
          WHERE c.brain_id = ? ORDER BY ranked.rank LIMIT ?
       )
       ${outerSelect("pool.rank")}, (SELECT count(*) FROM ranked) AS fetched
         FROM pool ${outerJoins()}
        WHERE chunks_fts MATCH ?
        ORDER BY pool.rank`,
    ).all(
      expr,
      pool * OVERFETCH,
      q.brainId,
      pool,
      expr,
    ) as unknown as (HitRow & { fetched: number })[];
    if (rows.length >= pool || (rows.length > 0 && rows[0].fetched < pool * OVERFETCH)) return rows;
  }
  const params: SQLInputValue[] = [expr, q.brainId];
  let scopeSql = "";
  if (q.scope !== "all") {
    scopeSql = "AND substr(d.path, 1, ?) = ?";
    const prefix = SCOPE_PREFIX[q.scope];
    params.push(prefix.length, prefix);
  }
  params.push(pool, expr);
  // Equal timestamps (a bulk import) fall back to write order, newest first. Forgotten documents
  // have no chunks, so no deleted_at filter is needed.
  const recency = q.sort === "recency";
  return db.prepare(
    `WITH pool AS (
       SELECT chunks_fts.rowid AS rid, bm25(chunks_fts, ${
      BM25_WEIGHTS.join(", ")
    }) AS rank, d.rowid AS dseq
         FROM chunks_fts
         JOIN chunks c ON c.rowid = chunks_fts.rowid
         JOIN documents d ON d.id = c.document_id
        WHERE chunks_fts MATCH ? AND c.brain_id = ? ${scopeSql}
        ORDER BY ${recency ? "d.updated_at DESC, d.rowid DESC, rank" : "rank"}
        LIMIT ?
     )
     ${outerSelect("pool.rank")}
       FROM pool ${outerJoins()}
      WHERE chunks_fts MATCH ?
      ORDER BY ${recency ? "d.updated_at DESC, pool.dseq DESC, pool.rank" : "pool.rank"}`,
  ).all(...params) as unknown as HitRow[];
}

function outerSelect(rank: string): string {
  const hl = (col: number) => `highlight(chunks_fts, ${col}, '${MARK_OPEN}', '${MARK_CLOSE}')`;
  return `SELECT c.id AS chunk_id, c.document_id, c.body, c.headings, d.title, d.path, d.metadata, d.updated_at,
            d.brain_id, ${rank} AS rank, ${hl(0)} AS title_hl, ${hl(1)} AS headings_hl, ${
    hl(2)
  } AS body_hl,
            snippet(chunks_fts, 2, '${DISPLAY_OPEN}', '${DISPLAY_CLOSE}', '…', 24) AS snip`;
}

function outerJoins(): string {
  return `JOIN chunks_fts ON chunks_fts.rowid = pool.rid
          JOIN chunks c ON c.rowid = pool.rid
          JOIN documents d ON d.id = c.document_id`;
}

/** Share of the query's terms marked in a highlighted column, 0..1. */
function coverage(highlighted: string, termCount: number): number {
  const found = new Set<string>();
  const re = new RegExp(`${MARK_OPEN}([^${MARK_CLOSE}]*)${MARK_CLOSE}`, "g");
  for (const m of highlighted.matchAll(re)) found.add(m[1].toLowerCase());
  return Math.min(1, found.size / Math.max(1, termCount));
}

function toHit(r: HitRow, termCount: number): SearchHit {
  const bm25 = -r.rank;
  const bonus = 0.99 * (COVERAGE_WEIGHTS[0] * coverage(r.title_hl, termCount) +
    COVERAGE_WEIGHTS[1] * coverage(r.headings_hl, termCount) +
    COVERAGE_WEIGHTS[2] * coverage(r.body_hl, termCount));
  const display = (s: string) =>
    s.replaceAll(MARK_OPEN, DISPLAY_OPEN).replaceAll(MARK_CLOSE, DISPLAY_CLOSE);
  const highlights: string[] = [];
  if (r.title_hl.includes(MARK_OPEN)) highlights.push(display(r.title_hl));
  if (r.snip.includes(DISPLAY_OPEN)) highlights.push(r.snip);
  return {
    score: round(bm25 + bonus),
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
    component_scores: { bm25: round(bm25), coverage: round(bonus) },
  };
}

/**
 * `relevance`: score, highest first. `recency`: newest first among the matches.
 * `relevance_then_recency`: relevance in bands of two significant digits, newest first within a
 * band, so near-equal hits favour fresh notes.
 */
function order(hits: SearchHit[], q: SearchQuery): SearchHit[] {
  if (q.sort === "recency") {
    // Stable: equal timestamps keep the SQL order (newest write first).
    hits.sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  } else if (q.sort === "relevance_then_recency") {
    const band = (s: number) => Number(s.toPrecision(2));
    hits.sort((a, b) => band(b.score) - band(a.score) || b.updated_at.localeCompare(a.updated_at));
  } else {
    hits.sort((a, b) => b.score - a.score);
  }
  return hits.slice(0, q.topK);
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** Versions and deletions, newest first. */
export function timeline(
  db: Prepares,
  brainId: string,
  o: { limit: number; since?: string },
): TimelineEntry[] {
  const since = o.since ?? "";
  return db.prepare(
    `SELECT * FROM (
       SELECT v.document_id, v.path, v.title, v.version, v.commit_sha,
              CASE WHEN v.version = 1 THEN 'created' ELSE 'updated' END AS action, v.created_at AS at, v.rowid AS seq
         FROM document_versions v JOIN documents d ON d.id = v.document_id
        WHERE d.brain_id = ? AND v.created_at >= ?
       UNION ALL
       SELECT id, path, title, version, commit_sha, 'deleted', deleted_at, 1e18
         FROM documents WHERE brain_id = ? AND deleted_at IS NOT NULL AND deleted_at >= ?
     ) ORDER BY at DESC, seq DESC LIMIT ?`,
  ).all(brainId, since, brainId, since, o.limit).map((r) => ({
    document_id: r.document_id as string,
    path: r.path as string,
    title: r.title as string,
    version: r.version as number,
    commit_sha: r.commit_sha as string,
    action: r.action as TimelineEntry["action"],
    at: r.at as string,
  }));
}

/** Live documents whose links point at `target` by path, title or file name. */
export function backlinks(db: Prepares, brainId: string, target: DocumentRecord): Backlink[] {
  const pathKey = wikiKey(target.path);
  const baseName = pathKey.split("/").pop() ?? pathKey;
  return db.prepare(
    `SELECT d.id AS document_id, d.path, d.title, l.kind, l.text
       FROM links l JOIN documents d ON d.id = l.source_document_id
      WHERE l.brain_id = ? AND d.deleted_at IS NULL AND d.id != ?
        AND (l.target_path = ? OR l.target_key IN (?, ?)
             OR substr(?, -length(l.target_key) - 1) = '/' || l.target_key)
      ORDER BY d.updated_at DESC`,
  ).all(brainId, target.id, target.path, target.title.toLowerCase(), baseName, `/${pathKey}`).map((
    r,
  ) => ({
    document_id: r.document_id as string,
    path: r.path as string,
    title: r.title as string,
    kind: r.kind as Backlink["kind"],
    text: r.text as string,
  }));
}

/** Tags with the number of live documents carrying each, most used first. */
export function tagCounts(db: Prepares, brainId: string): TagCount[] {
  return db.prepare(
    "SELECT tag, count(*) AS count FROM document_tags WHERE brain_id = ? GROUP BY tag ORDER BY count DESC, tag",
  ).all(brainId).map((r) => ({ tag: r.tag as string, count: r.count as number }));
}

/** Counts and sizes for one brain. */
export function brainStats(db: Prepares, brainId: string): BrainStats {
  const d = db.prepare(
    `SELECT count(*) FILTER (WHERE deleted_at IS NULL) AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted,
            coalesce(sum(byte_size) FILTER (WHERE deleted_at IS NULL), 0) AS bytes, max(updated_at) AS last
       FROM documents WHERE brain_id = ?`,
  ).get(brainId) as Record<string, number | string | null>;
  const one = (sql: string) => (db.prepare(sql).get(brainId) as { n: number }).n;
  return {
    brain_id: brainId,
    documents: d.live as number,
    deleted_documents: d.deleted as number,
    versions: one(
      "SELECT count(*) AS n FROM document_versions v JOIN documents d ON d.id = v.document_id WHERE d.brain_id = ?",
    ),
    chunks: one("SELECT count(*) AS n FROM chunks WHERE brain_id = ?"),
    bytes: d.bytes as number,
    tags: one("SELECT count(DISTINCT tag) AS n FROM document_tags WHERE brain_id = ?"),
    last_updated_at: (d.last as string | null) ?? null,
  };
}

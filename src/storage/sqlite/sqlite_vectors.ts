/**
 * @module The VectorIndex port over SQLite: chunk embeddings, and brute-force cosine search over them.
 *
 * A vector is a Float32 BLOB in the platform's byte order (little-endian wherever engram runs),
 * keyed by its chunk's rowid: re-chunking a document deletes its chunks, and their vectors go with
 * them (ON DELETE CASCADE), so a vector never outlives the text it was computed from.
 */
import { SCOPE_PREFIX } from "../../core/limits.ts";
import type { VectorIndex, VectorQuery } from "../../core/ports/vector_index.ts";
import type { SearchHit } from "../../core/types.ts";
import type { Prepares } from "./database.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { toVectorHit } from "../shared/vector_rows.ts";

/** Chunk vectors over one connection. */
export class SqliteVectorIndex implements VectorIndex {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  chunksOf(documentId: string): Promise<{ id: string; text: string }[]> {
    return this.#conn.read(() => chunksOf(this.#conn, documentId));
  }

  chunksWithoutVectors(
    brainId: string,
    options: { model: string; limit: number },
  ): Promise<{ id: string; text: string }[]> {
    return this.#conn.read(() => chunksWithoutVectors(this.#conn, brainId, options));
  }

  putVectors(model: string, rows: { chunk_id: string; vector: Float32Array }[]): Promise<void> {
    return this.#conn.write(() => putVectors(this.#conn, model, rows));
  }

  vectorSearch(query: VectorQuery): Promise<SearchHit[]> {
    return this.#conn.read(() => vectorSearch(this.#conn, query));
  }
}

/** A document's current chunks, in order: the body only, as it is embedded. */
function chunksOf(db: Prepares, documentId: string): { id: string; text: string }[] {
  return db.prepare("SELECT id, body FROM chunks WHERE document_id = ? ORDER BY ordinal, rowid")
    .all(documentId).map((r) => ({ id: r.id as string, text: r.body as string }));
}

/** Live chunks of a brain lacking a vector for `model`, oldest first, at most `limit`. */
function chunksWithoutVectors(
  db: Prepares,
  brainId: string,
  o: { model: string; limit: number },
): { id: string; text: string }[] {
  return db.prepare(
    `SELECT c.id, c.body FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.brain_id = ? AND d.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_rowid = c.rowid AND v.model = ?)
      ORDER BY c.rowid LIMIT ?`,
  ).all(brainId, o.model, Math.max(0, o.limit)).map((r) => ({
    id: r.id as string,
    text: r.body as string,
  }));
}

/**
 * Stores (replaces) vectors for `model`; the caller runs this in one transaction. A chunk that no
 * longer exists (its document was rewritten while it was being embedded) is skipped: its
 * replacement chunks will be embedded in turn.
 */
function putVectors(
  db: Prepares,
  model: string,
  rows: { chunk_id: string; vector: Float32Array }[],
): void {
  const upsert = db.prepare(
    `INSERT INTO chunk_vectors (chunk_rowid, model, dims, vector)
     SELECT rowid, ?, ?, ? FROM chunks WHERE id = ?
     ON CONFLICT (chunk_rowid, model) DO UPDATE SET dims = excluded.dims, vector = excluded.vector`,
  );
  for (const r of rows) {
    const bytes = new Uint8Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength);
    upsert.run(model, r.vector.length, bytes, r.chunk_id);
  }
}

/**
 * The `topK` chunks nearest to the query by cosine similarity, best first. Two passes: scores over
 * the vectors alone, then the hit details for the winners only, so a large brain's chunk bodies
 * are never all loaded. Vectors of another dimension (a model changed its size) are skipped.
 */
function vectorSearch(db: Prepares, q: VectorQuery): SearchHit[] {
  const queryNorm = norm(q.vector);
  if (q.topK <= 0 || queryNorm === 0) return [];
  const params: (string | number)[] = [q.brainId, q.model, q.vector.length];
  let scopeSql = "";
  if (q.scope !== "all") {
    scopeSql = "AND substr(d.path, 1, ?) = ?";
    const prefix = SCOPE_PREFIX[q.scope];
    params.push(prefix.length, prefix);
  }
  const best: { rowid: number; score: number }[] = [];
  const rows = db.prepare(
    `SELECT v.chunk_rowid AS rowid, v.vector FROM chunk_vectors v
       JOIN chunks c ON c.rowid = v.chunk_rowid
       JOIN documents d ON d.id = c.document_id
      WHERE c.brain_id = ? AND v.model = ? AND v.dims = ? AND d.deleted_at IS NULL ${scopeSql}
      ORDER BY v.chunk_rowid`,
  ).iterate(...params);
  for (const r of rows) {
    const score = cosine(q.vector, queryNorm, asFloats(r.vector as Uint8Array));
    if (Number.isNaN(score)) continue;
    if (best.length === q.topK && score <= best[best.length - 1].score) continue;
    // Insertion into a list of at most topK (≤ 100): cheaper than sorting every score.
    let i = best.length;
    while (i > 0 && best[i - 1].score < score) i--;
    best.splice(i, 0, { rowid: r.rowid as number, score });
    if (best.length > q.topK) best.pop();
  }
  return hitsFor(db, best);
}

function hitsFor(db: Prepares, best: { rowid: number; score: number }[]): SearchHit[] {
  if (best.length === 0) return [];
  const rows = db.prepare(
    `SELECT c.rowid, c.id AS chunk_id, c.document_id, c.body, c.headings, d.title, d.path,
            d.metadata, d.updated_at, d.brain_id
       FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.rowid IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(best.map((b) => b.rowid)));
  const byRowid = new Map(rows.map((r) => [r.rowid as number, r]));
  const hits: SearchHit[] = [];
  for (const b of best) {
    // Gone only if another process re-chunked the document between the two reads.
    const r = byRowid.get(b.rowid);
    if (!r) continue;
    hits.push(toVectorHit(r, b.score));
  }
  return hits;
}

/** The BLOB as floats; copied only when SQLite's buffer is not 4-byte aligned. */
function asFloats(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0) {
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  }
  return new Float32Array(bytes.slice().buffer);
}

function norm(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return Math.sqrt(sum);
}

/** Cosine similarity; NaN for a zero vector, which has no direction. */
function cosine(a: Float32Array, aNorm: number, b: Float32Array): number {
  if (a.length !== b.length) return NaN;
  let dot = 0;
  let bSum = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    bSum += b[i] * b[i];
  }
  return bSum === 0 ? NaN : dot / (aNorm * Math.sqrt(bSum));
}

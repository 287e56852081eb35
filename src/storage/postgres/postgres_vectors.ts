/**
 * @module The VectorIndex port over PostgreSQL without pgvector: chunk embeddings as `real[]`, and
 * brute-force cosine search over them, as SQLite does (docs/architecture.md#postgresql-vectors).
 *
 * Debian 12 does not package pgvector, so the tested path needs nothing but PostgreSQL: a search
 * reads the vectors of the brain's live chunks for the model, a thousand at a time through a
 * cursor, each as `array_send`'s binary form (read straight into floats, where the text form of a
 * `real[]` would be parsed number by number), and keeps the best `topK` in TypeScript. When the
 * database has the `vector` extension, the same rows are cast to `vector` and ranked by the
 * server's `<=>` (cosine distance) instead, so no vector leaves the server; that path is not
 * tested here (no pgvector on the test machines), and falls back to the first if the server
 * refuses (a NaN in a stored vector, which pgvector does not accept).
 *
 * A vector is keyed by its chunk's `seq`: re-chunking a document deletes its chunks, and their
 * vectors go with them (ON DELETE CASCADE), so a vector never outlives the text it was computed
 * from.
 */
import { SCOPE_PREFIX } from "../../core/limits.ts";
import type { Logger } from "../../core/logger.ts";
import type { VectorIndex, VectorQuery } from "../../core/ports/vector_index.ts";
import type { SearchHit } from "../../core/types.ts";
import type { PostgresConnection, Queries } from "./connection.ts";
import { toVectorHit } from "../shared/vector_rows.ts";

/** The vectors' migration (migrations.ts lists it after the search index's). */
export const VECTORS_MIGRATION = {
  name: "chunk vectors (real[], cosine without pgvector)",
  sql: `
CREATE TABLE chunk_vectors (
  chunk_seq bigint NOT NULL REFERENCES chunks(seq) ON DELETE CASCADE,
  model TEXT COLLATE "C" NOT NULL,
  dims integer NOT NULL,
  vector real[] NOT NULL,
  PRIMARY KEY (chunk_seq, model)
);
`,
} as const;

/** Vectors read per round trip of a search's cursor. */
const CURSOR_ROWS = 1000;
/** Bytes before the first element of a one-dimensional `array_send`: ndim, flags, oid, dim, lbound. */
const ARRAY_HEADER = 20;

/** Chunk vectors over one pool. */
export class PostgresVectorIndex implements VectorIndex {
  readonly #conn: PostgresConnection;
  readonly #logger: Logger;
  /** Whether the database has pgvector, once asked. */
  #pgvector?: Promise<boolean>;

  constructor(conn: PostgresConnection, options: { logger?: Logger } = {}) {
    this.#conn = conn;
    this.#logger = options.logger ?? conn.logger;
  }

  chunksOf(documentId: string): Promise<{ id: string; text: string }[]> {
    return this.#conn.read(async (sql) =>
      [
        ...await sql<{ id: string; text: string }[]>`
        SELECT id, body AS text FROM chunks WHERE document_id = ${documentId}
         ORDER BY ordinal, seq`,
      ].map((r) => ({ id: r.id, text: r.text }))
    );
  }

  chunksWithoutVectors(
    brainId: string,
    options: { model: string; limit: number },
  ): Promise<{ id: string; text: string }[]> {
    return this.#conn.read(async (sql) =>
      [
        ...await sql<{ id: string; text: string }[]>`
        SELECT c.id, c.body AS text FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE c.brain_id = ${brainId} AND d.deleted_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM chunk_vectors v
                            WHERE v.chunk_seq = c.seq AND v.model = ${options.model})
         ORDER BY c.seq LIMIT ${Math.max(0, options.limit)}`,
      ].map((r) => ({ id: r.id, text: r.text }))
    );
  }

  /**
   * Stores (replaces) vectors for `model`, in one statement (a chunk given twice keeps the later
   * vector). A chunk that no longer exists (its
   * document was rewritten while it was embedded) is skipped, also when another node deletes it
   * meanwhile: the chunk rows are locked (`FOR KEY SHARE`) before the vectors go in.
   */
  putVectors(model: string, rows: { chunk_id: string; vector: Float32Array }[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.#conn.write(async (sql) => {
      await sql`
        WITH given AS (
          SELECT * FROM unnest(${sql.array(rows.map((r) => r.chunk_id))}::text[],
                               ${sql.array(rows.map((r) => arrayLiteral(r.vector)))}::text[])
                     WITH ORDINALITY AS g(chunk_id, vector, n)
        ), live AS (
          SELECT c.seq, c.id FROM chunks c WHERE c.id IN (SELECT chunk_id FROM given)
             FOR KEY SHARE
        )
        INSERT INTO chunk_vectors (chunk_seq, model, dims, vector)
        SELECT DISTINCT ON (live.seq) live.seq, ${model}, cardinality(g.vector::real[]),
               g.vector::real[]
          FROM given g JOIN live ON live.id = g.chunk_id
         ORDER BY live.seq, g.n DESC
        ON CONFLICT (chunk_seq, model) DO UPDATE SET dims = excluded.dims, vector = excluded.vector`;
    });
  }

  vectorSearch(query: VectorQuery): Promise<SearchHit[]> {
    if (query.topK <= 0 || norm(query.vector) === 0) return Promise.resolve([]);
    return this.#conn.read(async (sql) => {
      let best: Scored[] | null = null;
      if (await this.#hasPgvector(sql) && query.vector.every(Number.isFinite)) {
        try {
          best = await nearestOnServer(sql, query);
        } catch (err) {
          // Inside a unit of work the failed statement has aborted the transaction: no fallback.
          if (this.#conn.inUnit) throw err;
          this.#logger.warn("pgvector refused a vector search; scoring in engram instead", {
            error: String(err),
          });
        }
      }
      best ??= await nearestHere(sql, query);
      return await hitsFor(sql, best);
    });
  }

  #hasPgvector(sql: Queries): Promise<boolean> {
    this.#pgvector ??= sql<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS found`
      .then(([r]) => r.found, () => false);
    return this.#pgvector;
  }
}

/** A chunk and its cosine similarity to the query. */
interface Scored {
  seq: string;
  score: number;
}

/** The filter of a vector search: the brain's live chunks in scope, this model and dimension. */
function vectorRows(sql: Queries, q: VectorQuery) {
  const prefix = q.scope === "all" ? null : SCOPE_PREFIX[q.scope];
  return sql`
    FROM chunk_vectors v JOIN chunks c ON c.seq = v.chunk_seq
    JOIN documents d ON d.id = c.document_id
   WHERE c.brain_id = ${q.brainId} AND v.model = ${q.model} AND v.dims = ${q.vector.length}
     AND d.deleted_at IS NULL ${prefix === null ? sql`` : sql`AND starts_with(d.path, ${prefix})`}`;
}

/**
 * The `topK` nearest chunks, best first, scored here: every vector of another dimension (a model
 * changed its size) is skipped, and so is a zero vector, which has no direction.
 */
async function nearestHere(sql: Queries, q: VectorQuery): Promise<Scored[]> {
  const queryNorm = norm(q.vector);
  const best: Scored[] = [];
  const cursor = sql<{ seq: string; bytes: Uint8Array }[]>`
    SELECT v.chunk_seq::text AS seq, array_send(v.vector) AS bytes ${vectorRows(sql, q)}
     ORDER BY v.chunk_seq`.cursor(CURSOR_ROWS);
  for await (const rows of cursor) {
    for (const r of rows) {
      const score = cosine(q.vector, queryNorm, r.bytes);
      if (Number.isNaN(score)) continue;
      if (best.length === q.topK && score <= best[best.length - 1].score) continue;
      // Insertion into a list of at most topK (≤ 100): cheaper than sorting every score.
      let i = best.length;
      while (i > 0 && best[i - 1].score < score) i--;
      best.splice(i, 0, { seq: r.seq, score });
      if (best.length > q.topK) best.pop();
    }
  }
  return best;
}

/** The `topK` nearest chunks, ranked by pgvector's cosine distance on the server. */
async function nearestOnServer(sql: Queries, q: VectorQuery): Promise<Scored[]> {
  const literal = `[${Array.from(q.vector).join(",")}]`;
  const rows = await sql<{ seq: string; score: number }[]>`
    SELECT seq, 1 - distance AS score FROM (
      SELECT v.chunk_seq::text AS seq, (v.vector::vector <=> ${literal}::vector) AS distance
             ${vectorRows(sql, q)}) s
     WHERE distance <> 'NaN'::float8
     ORDER BY distance, seq::bigint LIMIT ${q.topK}`;
  return rows.map((r) => ({ seq: r.seq, score: r.score }));
}

async function hitsFor(sql: Queries, best: Scored[]): Promise<SearchHit[]> {
  if (best.length === 0) return [];
  const rows = await sql`
    SELECT c.seq::text AS seq, c.id AS chunk_id, c.document_id, c.body, c.headings, d.title, d.path,
           d.metadata, d.updated_at, d.brain_id
      FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.seq = ANY (${sql.array(best.map((b) => b.seq))}::bigint[])`;
  const bySeq = new Map(rows.map((r) => [r.seq as string, r]));
  const hits: SearchHit[] = [];
  for (const b of best) {
    // Gone only if another node re-chunked the document between the two reads.
    const r = bySeq.get(b.seq);
    if (!r) continue;
    hits.push(toVectorHit(r, b.score));
  }
  return hits;
}

/**
 * A `real[]` literal of exactly the viewed floats. A float32 printed as the shortest double that
 * reads back as it (JavaScript's number formatting) is read back by PostgreSQL as the same float.
 */
function arrayLiteral(v: Float32Array): string {
  return `{${Array.from(v, (x) => Number.isFinite(x) ? String(x) : `"${x}"`).join(",")}}`;
}

function norm(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return Math.sqrt(sum);
}

/**
 * Cosine similarity of `a` with the vector in `array_send`'s binary form (big-endian floats, each
 * after its 4-byte length); NaN for a zero vector, which has no direction, or a malformed one.
 */
function cosine(a: Float32Array, aNorm: number, bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength !== ARRAY_HEADER + 8 * a.length || view.getInt32(0) !== 1) return NaN;
  let dot = 0;
  let bSum = 0;
  for (let i = 0, at = ARRAY_HEADER + 4; i < a.length; i++, at += 8) {
    const b = view.getFloat32(at);
    dot += a[i] * b;
    bSum += b * b;
  }
  return bSum === 0 ? NaN : dot / (aNorm * Math.sqrt(bSum));
}

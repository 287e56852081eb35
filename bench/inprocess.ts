/** @module In-process measurements: bulk and single remembers, and the FTS5 floors. */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { ensureDefaultBrain } from "../src/core/brains.ts";
import { MemoryService } from "../src/core/memory_service.ts";
import type { CallerContext } from "../src/core/types.ts";
import { openDatabase } from "../src/storage/sqlite/database.ts";
import { searchChunks } from "../src/storage/sqlite/search/chunk_search.ts";
import { ftsExpression, ftsTerms } from "../src/storage/sqlite/search/fts_query.ts";
import { openSqliteStorage, type SqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import type { Corpus, Note } from "./corpus.ts";
import { orExpression } from "./fts_baseline.ts";

/** The caller bulk import runs as: the local operator, like `engram remember`. */
const CALLER: CallerContext = { clientId: "bench", transport: "cli", tier: "admin", brains: "*" };

/** Documents per unit of work in the bulk import: the batch `engram ingest` uses. */
export const IMPORT_BATCH = 200;

/** Result of a bulk import. */
export interface ImportResult {
  docs: number;
  /** Time inside the units of work + `service.remember` only (note generation excluded), ms. */
  rememberMs: number;
  /** Time spent generating notes, ms. */
  generateMs: number;
  /** docs/s of each successive tenth of the import, to show slow-down as the index grows. */
  tenths: number[];
  chunks: number;
}

/**
 * Bulk import into a fresh database `file`: notes 0..n-1, each through `service.remember`, in
 * units of work of IMPORT_BATCH documents (how `engram ingest` writes).
 */
export async function bulkRemember(
  file: string,
  corpus: Corpus,
  n: number,
  progress: (done: number) => void = () => {},
): Promise<ImportResult> {
  const storage = openSqliteStorage(file);
  await ensureDefaultBrain(storage.brains);
  const service = new MemoryService(storage);
  let rememberMs = 0;
  let generateMs = 0;
  const tenth = Math.max(IMPORT_BATCH, Math.floor(n / 10));
  const tenths: number[] = [];
  let tenthMs = 0;
  try {
    for (let start = 0; start < n; start += IMPORT_BATCH) {
      const g = performance.now();
      const notes: Note[] = [];
      for (let i = start; i < Math.min(n, start + IMPORT_BATCH); i++) notes.push(corpus.note(i));
      generateMs += performance.now() - g;
      const t = performance.now();
      await storage.units.withTransaction(async () => {
        for (const note of notes) {
          await service.remember(CALLER, {
            content: note.content,
            path: note.path,
            tags: note.tags,
          });
        }
      });
      const dt = performance.now() - t;
      rememberMs += dt;
      tenthMs += dt;
      const done = start + notes.length;
      if (done % tenth === 0 || done === n) {
        tenths.push((done - tenths.length * tenth) / (tenthMs / 1000));
        tenthMs = 0;
      }
      progress(done);
    }
    const chunks =
      (storage.connection.db.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
    return { docs: n, rememberMs, generateMs, tenths, chunks };
  } finally {
    storage.close();
  }
}

/**
 * Per-call latencies (ms) of `count` more notes (ids `from`…) remembered one by one, each in its
 * own transaction: the path of an agent calling memory_remember, into a brain `from` notes big.
 */
export async function rememberEach(
  file: string,
  corpus: Corpus,
  from: number,
  count: number,
): Promise<number[]> {
  const storage = openSqliteStorage(file);
  const service = new MemoryService(storage);
  try {
    const latency: number[] = [];
    for (let i = from; i < from + count; i++) {
      const note = corpus.note(i);
      const t = performance.now();
      await service.remember(CALLER, { content: note.content, path: note.path, tags: note.tags });
      latency.push(performance.now() - t);
    }
    return latency;
  } finally {
    storage.close();
  }
}

/** The in-process search paths; each returns its number of hits. */
export interface Floors {
  /** `searchChunks`: the SQLite search of top 10 chunks, in process, synchronously. */
  searchChunks(text: string): number;
  /** `MemoryService.searchHits`: what memory_search runs (top 10, one per document), no cache. */
  engram(text: string): Promise<number>;
  /**
   * The raw FTS5 query (the target's floor): the query's words, each quoted, OR'd, in one
   * `SELECT rowid, snippet(…) … MATCH ? ORDER BY rank LIMIT 10` — what FTS5 gives with no query
   * processing, the same definition as the retrieval benchmark's baseline (bench/fts_baseline.ts).
   */
  raw(text: string): number;
  /**
   * `SELECT rowid … MATCH ? ORDER BY rank LIMIT 10` on the all-terms expression, else the any-term
   * one: no snippet, joins or prefix widening.
   */
  bare(text: string): number;
  close(): void;
}

/** Opens `file` in this process for the floor measurements. */
export function openFloors(file: string): Floors {
  const storage: SqliteStorage = openSqliteStorage(file, { searchCacheMb: 0 });
  const service = new MemoryService(storage);
  const db = openDatabase(file);
  const brainId = defaultBrainId(db);
  // Statements prepared once, as SqliteStorage does, so the floor does not pay SQL compilation.
  const statements = new Map<string, StatementSync>();
  const cached = {
    prepare: (sql: string) => {
      let stmt = statements.get(sql);
      if (!stmt) statements.set(sql, stmt = db.prepare(sql));
      return stmt;
    },
  };
  const bare = db.prepare(
    "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 10",
  );
  const raw = db.prepare(
    "SELECT rowid, snippet(chunks_fts, 2, '**', '**', '…', 24) AS s FROM chunks_fts " +
      "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 10",
  );
  return {
    searchChunks: (text) =>
      searchChunks(cached, { brainId, text, topK: 10, scope: "all", sort: "relevance" }).length,
    engram: async (text) =>
      (await service.searchHits({ brainId, text, topK: 10, scope: "all", sort: "relevance" }))
        .length,
    raw: (text) => {
      const expr = orExpression(text);
      return expr ? raw.all(expr).length : 0;
    },
    bare: (text) => {
      const terms = ftsTerms(text);
      const rows = bare.all(ftsExpression(terms, "and") ?? '""');
      if (rows.length > 0 || terms.length < 2) return rows.length;
      return bare.all(ftsExpression(terms, "or")!).length;
    },
    close: () => {
      db.close();
      storage.close();
    },
  };
}

/** Id of the `default` brain. */
export function defaultBrainId(db: DatabaseSync): string {
  return (db.prepare("SELECT id FROM brains WHERE slug = 'default'").get() as { id: string }).id;
}

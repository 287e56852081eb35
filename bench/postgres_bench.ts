/**
 * @module `deno task bench --backend postgres`: the PostgreSQL backend against SQLite, in one run,
 * at each size (10k, 100k notes): bulk import through the in-process MemoryService (units of 200
 * documents, as `engram ingest` writes) into each; uncached search (`MemoryService.searchHits`,
 * search cache off on both) on the same queries, interleaved query by query so machine load hits
 * both alike; single remembers (one unit each) alternating between the two; and `engram migrate`'s
 * copy of the SQLite file into a fresh PostgreSQL database.
 *
 * PostgreSQL is a throwaway cluster of Debian's `postgresql` package (tests/storage/postgres/
 * _cluster.ts: loopback TCP, `fsync=off`, `synchronous_commit=off`, 32 MB shared buffers), which
 * the bench needs installed. SQLite runs as engram runs it (WAL, `synchronous=NORMAL`). Neither
 * waits on a disk flush per commit, so the comparison is of the engines and the round trip. Target
 * (reported, never asserted): PostgreSQL's uncached search p50 at 10k within 3× of SQLite's.
 */
import { ensureDefaultBrain } from "../src/core/brains.ts";
import { MemoryService } from "../src/core/memory_service.ts";
import type { CallerContext, GroupedSearchQuery } from "../src/core/types.ts";
import { migrateDatabase } from "../src/storage/migrate/migrate.ts";
import {
  openPostgresStorage,
  type PostgresStorage,
} from "../src/storage/postgres/postgres_storage.ts";
import { openSqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import { type Cluster, startCluster } from "../tests/storage/postgres/_cluster.ts";
import { buildQueries, Corpus, type Note } from "./corpus.ts";
import { bulkRemember, IMPORT_BATCH, type ImportResult } from "./inprocess.ts";
import { markdownTable, ms, sizeLabel, summarize, type Summary, table } from "./stats.ts";

/** The caller of the in-process work: the local operator, like `engram remember`. */
const CALLER: CallerContext = { clientId: "bench", transport: "cli", tier: "admin", brains: "*" };
/** Queries run unmeasured on both backends first. */
const WARMUP_QUERIES = 30;
/** Target: PostgreSQL's uncached search p50 at most this many times SQLite's. */
const SEARCH_RATIO_TARGET = 3;

/** What the PostgreSQL bench is told. */
export interface PostgresBenchOptions {
  sizes: number[];
  queries: number;
  remembers: number;
  seed: number;
  markdown: boolean;
  log: (message: string) => void;
}

/** One size's figures on both backends. */
interface SizeFigures {
  size: number;
  imports: { sqlite: ImportResult; postgres: ImportResult };
  search: { sqlite: Summary; postgres: Summary };
  /** Queries whose hit count, and whose first hit, agree between the backends. */
  agree: { count: number; first: number; of: number };
  remember: { sqlite: Summary; postgres: Summary };
  bytes: { sqlite: number; postgres: number };
  migrate: { rows: number; seconds: number };
}

/** Runs every size and returns the report; the cluster is stopped when the process exits. */
export async function runPostgresBench(o: PostgresBenchOptions): Promise<string> {
  const cluster = await startCluster();
  if ("skip" in cluster) {
    throw new Error(
      cluster.skip.replace("skipping the PostgreSQL tests", "no PostgreSQL for the bench"),
    );
  }
  o.log(`PostgreSQL ${cluster.version}: throwaway cluster on loopback`);
  const figures: SizeFigures[] = [];
  for (const size of o.sizes) figures.push(await runSize(cluster, size, o));
  return report(figures, o, cluster.version);
}

async function runSize(
  cluster: Cluster,
  size: number,
  o: PostgresBenchOptions,
): Promise<SizeFigures> {
  const label = sizeLabel(size);
  const dir = await Deno.makeTempDir({ prefix: `engram-bench-pg-${label}-` });
  const file = `${dir}/engram.db`;
  const db = await cluster.createEmptyDatabase();
  const copy = await cluster.createEmptyDatabase();
  try {
    const corpus = new Corpus(size, o.seed);
    o.log(`${label}: bulk import into SQLite`);
    const sqliteImport = await bulkRemember(file, corpus, size);
    o.log(`${label}: ${rate(sqliteImport)} docs/s; bulk import into PostgreSQL`);
    const pgImport = await pgBulkRemember(db.url, corpus, size, (done) => {
      if (done % Math.max(1000, size / 10) === 0) o.log(`${label}: PostgreSQL ${done} notes`);
    });
    o.log(`${label}: ${rate(pgImport)} docs/s; ${o.queries} queries on both, interleaved`);
    const lite = openSqliteStorage(file, { searchCacheMb: 0 });
    const pg = await openPostgresStorage({ url: db.url, searchCacheMb: 0 });
    let search, agree, remember, bytes;
    try {
      // What autovacuum does soon after a bulk load (its insert threshold): hint bits and the
      // visibility map set, statistics taken. Without it the first reads of each page pay for
      // them, and a count over the index visits the heap (bench/RESULTS.md has the difference).
      await pg.connection.pool`VACUUM ANALYZE`;
      const queries = buildQueries(corpus, o.queries).map((q) => q.text);
      const services = [new MemoryService(lite), new MemoryService(pg)];
      const brains = await Promise.all(
        [lite, pg].map(async (s) => (await s.brains.findBrain("default"))!.id),
      );
      const searchOn = (k: number) => (text: string) =>
        services[k].searchHits(query(brains[k], text));
      ({ search, agree } = await timeSearches(queries, [searchOn(0), searchOn(1)]));
      o.log(`${label}: ${o.remembers} single remembers on each`);
      remember = await timeRemembers(corpus, size, o.remembers, services);
      const [{ n }] = await pg.connection.pool<{ n: number }[]>`
        SELECT pg_database_size(current_database()) AS n`;
      bytes = { sqlite: fileBytes(file), postgres: Number(n) };
    } finally {
      lite.close();
      await pg.close();
    }
    o.log(`${label}: engram migrate of the SQLite file into an empty PostgreSQL database`);
    const t = performance.now();
    const copied = await migrateDatabase(file, copy.url, { batchRows: 1000 });
    const seconds = (performance.now() - t) / 1000;
    if (copied.status !== "complete") throw new Error(`migrate ended ${copied.status}`);
    return {
      size,
      imports: { sqlite: sqliteImport, postgres: pgImport },
      search,
      agree,
      remember,
      bytes,
      migrate: { rows: copied.copied_rows, seconds },
    };
  } finally {
    await db.drop();
    await copy.drop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A top-10 search of the default brain, one hit per document (what memory_search asks). */
function query(brainId: string, text: string): GroupedSearchQuery {
  return { brainId, text, topK: 10, scope: "all", sort: "relevance" };
}

/** Bulk import into the empty PostgreSQL database at `url`, as bulkRemember does into SQLite. */
export async function pgBulkRemember(
  url: string,
  corpus: Corpus,
  n: number,
  progress: (done: number) => void,
): Promise<ImportResult> {
  const storage: PostgresStorage = await openPostgresStorage({ url, poolSize: 4 });
  await ensureDefaultBrain(storage.brains);
  const service = new MemoryService(storage);
  let rememberMs = 0;
  let generateMs = 0;
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
      rememberMs += performance.now() - t;
      progress(start + notes.length);
    }
    const [{ chunks }] = await storage.connection.pool<{ chunks: number }[]>`
      SELECT count(*)::int AS chunks FROM chunks`;
    return { docs: n, rememberMs, generateMs, tenths: [], chunks };
  } finally {
    await storage.close();
  }
}

/** Each query on both paths, the order alternating per query; latencies and agreement. */
async function timeSearches(
  queries: string[],
  paths: ((text: string) => Promise<{ path: string }[]>)[],
): Promise<Pick<SizeFigures, "search" | "agree">> {
  for (const q of queries.slice(0, WARMUP_QUERIES)) for (const p of paths) await p(q);
  const latency: number[][] = [[], []];
  let count = 0;
  let first = 0;
  for (let i = 0; i < queries.length; i++) {
    const got: { path: string }[][] = [[], []];
    for (let k = 0; k < 2; k++) {
      const p = (i + k) % 2;
      const t = performance.now();
      got[p] = await paths[p](queries[i]);
      latency[p].push(performance.now() - t);
    }
    if (got[0].length === got[1].length) count++;
    if (got[0][0]?.path === got[1][0]?.path) first++;
  }
  return {
    search: { sqlite: summarize(latency[0]), postgres: summarize(latency[1]) },
    agree: { count, first, of: queries.length },
  };
}

/** `count` more notes remembered one per unit on each backend, alternating; per-call latency. */
async function timeRemembers(
  corpus: Corpus,
  from: number,
  count: number,
  services: MemoryService[],
): Promise<SizeFigures["remember"]> {
  const latency: number[][] = [[], []];
  for (let i = from; i < from + count; i++) {
    const note = corpus.note(i);
    for (let k = 0; k < 2; k++) {
      const p = (i + k) % 2;
      const t = performance.now();
      await services[p].remember(CALLER, {
        content: note.content,
        path: note.path,
        tags: note.tags,
      });
      latency[p].push(performance.now() - t);
    }
  }
  return { sqlite: summarize(latency[0]), postgres: summarize(latency[1]) };
}

function fileBytes(file: string): number {
  return [file, `${file}-wal`].reduce((sum, f) => {
    try {
      return sum + Deno.statSync(f).size;
    } catch {
      return sum;
    }
  }, 0);
}

function rate(r: ImportResult): string {
  return (r.docs / (r.rememberMs / 1000)).toFixed(0);
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function report(figures: SizeFigures[], o: PostgresBenchOptions, version: string): string {
  const header = [
    "notes",
    "backend",
    "import docs/s",
    "search p50 ms",
    "p90",
    "p99",
    "remember p50 ms",
    "p99",
    "database MiB",
  ];
  const rows = figures.flatMap((f) => [
    [
      sizeLabel(f.size),
      "SQLite",
      rate(f.imports.sqlite),
      ms(f.search.sqlite.p50),
      ms(f.search.sqlite.p90),
      ms(f.search.sqlite.p99),
      ms(f.remember.sqlite.p50),
      ms(f.remember.sqlite.p99),
      mib(f.bytes.sqlite),
    ],
    [
      sizeLabel(f.size),
      `PostgreSQL ${version}`,
      rate(f.imports.postgres),
      ms(f.search.postgres.p50),
      ms(f.search.postgres.p90),
      ms(f.search.postgres.p99),
      ms(f.remember.postgres.p50),
      ms(f.remember.postgres.p99),
      mib(f.bytes.postgres),
    ],
  ]);
  const ratioHeader = [
    "notes",
    "search p50 PG/SQLite",
    "p99 PG/SQLite",
    "import SQLite/PG",
    "target",
    "result",
    "same hit count",
    "same first hit",
    "engram migrate",
  ];
  const ratios = figures.map((f) => {
    const r = f.search.postgres.p50 / f.search.sqlite.p50;
    return [
      sizeLabel(f.size),
      `${r.toFixed(2)}×`,
      `${(f.search.postgres.p99 / f.search.sqlite.p99).toFixed(2)}×`,
      `${(Number(rate(f.imports.sqlite)) / Number(rate(f.imports.postgres))).toFixed(2)}×`,
      `p50 ≤ ${SEARCH_RATIO_TARGET}×`,
      r <= SEARCH_RATIO_TARGET ? "PASS" : "FAIL",
      `${f.agree.count}/${f.agree.of}`,
      `${f.agree.first}/${f.agree.of}`,
      `${f.migrate.rows} rows in ${f.migrate.seconds.toFixed(1)} s (${
        (f.migrate.rows / f.migrate.seconds).toFixed(0)
      } rows/s)`,
    ];
  });
  const lines = [
    `PostgreSQL ${version} (throwaway cluster, loopback TCP, fsync off) against SQLite (WAL, synchronous=NORMAL), in process;`,
    `search: MemoryService.searchHits, top 10, search cache off on both, ${o.queries} queries (+${WARMUP_QUERIES} warm-up) interleaved; ${o.remembers} single remembers each`,
    "",
    table(header, rows),
    "",
    table(ratioHeader, ratios),
  ];
  if (o.markdown) {
    lines.push("", markdownTable(header, rows), "", markdownTable(ratioHeader, ratios));
  }
  return lines.join("\n");
}

/**
 * @module `deno task bench`: engram's performance figures at 10k and 100k synthetic notes.
 *
 * Per size, in a fresh temp directory: bulk import through the in-process MemoryService (batched
 * like `engram ingest`); the start-to-initialize time of `engram stdio` (median of --start-runs);
 * its idle RSS; memory_search latency through the real stdio server (MCP SDK client, and a raw
 * JSON-RPC client for the split) interleaved with the same queries in process: engram's own
 * search (MemoryService.searchHits), the raw FTS5 query with snippet (the target's floor: the
 * query's words OR'd, bm25, LIMIT 10) and a bare FTS5 MATCH; then --remembers more notes one per
 * transaction, the memory_remember path, into the full brain. The servers run with
 * `storage.search_cache_mb: 0` (every query searched, as on a cache miss) unless --cache.
 * Then ingestion (bench/ingest_bench.ts): `engram ingest DIR` as a subprocess on a generated
 * markdown folder (--ingest-files, default 10k, quick 2k) and again unchanged, against the bulk
 * import of the same notes; a 20 MiB file through `engram ingest` and through memory_ingest_file.
 * Speed targets are reported, never asserted. Progress goes to stderr, the tables to stdout.
 *
 *   deno task bench                      10k and 100k, 300 queries
 *   deno task bench --quick              10k only, 150 queries; ingestion on 2k files
 *   deno task bench --ingest-only        only the ingestion section (--ingest-files N)
 *   deno task bench --sizes 2000,10000 --queries 200 --start-runs 10 --bin ./dist/engram
 *   --remembers N (one-per-transaction remembers after the search phase; default 2000, quick 1000)
 *   --cache (measure with the search cache on, its default size; the target is for misses)
 *   --seed N (corpus and queries), --keep (keep the temp data dirs),
 *   --markdown (also print the tables as markdown, for bench/RESULTS.md)
 *   --backend postgres: PostgreSQL against SQLite in one run instead (bench/postgres_bench.ts:
 *     import, uncached search, single remembers, engram migrate; --sizes, --queries, --remembers
 *     and --seed apply; needs Debian's postgresql package)
 */
import { parseArgs } from "node:util";
import { buildQueries, Corpus, DEFAULT_SEED, type Query } from "./corpus.ts";
import { bulkRemember, type Floors, openFloors, rememberEach } from "./inprocess.ts";
import { type IngestResult, runIngest } from "./ingest_bench.ts";
import { runPostgresBench } from "./postgres_bench.ts";
import { importLines, ingestLines, kindTable, mainTable, type SizeResult } from "./report.ts";
import { sizeLabel } from "./stats.ts";
import {
  connectSdk,
  rawSearch,
  RawSession,
  readRss,
  sdkSearch,
  settledRss,
  timeToInitialize,
} from "./stdio_client.ts";

/** Queries run unmeasured before each measured pass, to warm caches and the JIT. */
const WARMUP_QUERIES = 30;

/** Command-line options. */
interface Options {
  sizes: number[];
  queries: number;
  startRuns: number;
  remembers: number;
  seed: number;
  /** Skip the search/import sections. */
  ingestOnly: boolean;
  /** Files in the generated folder for the ingestion section. */
  ingestFiles: number;
  bin?: string;
  keep: boolean;
  markdown: boolean;
  /** Keep the search cache on (default: off, so every query is a miss). */
  cache: boolean;
  /** `postgres`: the PostgreSQL bench (bench/postgres_bench.ts) instead of this one. */
  backend: "sqlite" | "postgres";
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      sizes: { type: "string" },
      queries: { type: "string" },
      "start-runs": { type: "string", default: "10" },
      remembers: { type: "string" },
      seed: { type: "string", default: String(DEFAULT_SEED) },
      "ingest-only": { type: "boolean", default: false },
      "ingest-files": { type: "string" },
      bin: { type: "string" },
      keep: { type: "boolean", default: false },
      markdown: { type: "boolean", default: false },
      cache: { type: "boolean", default: false },
      backend: { type: "string", default: "sqlite" },
    },
  });
  if (values.backend !== "sqlite" && values.backend !== "postgres") {
    throw new Error("--backend wants sqlite or postgres");
  }
  const int = (s: string, name: string) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} wants a positive integer`);
    return n;
  };
  const sizes = values.sizes?.split(",").map((s) => int(s.trim(), "sizes")) ??
    (values.quick ? [10_000] : [10_000, 100_000]);
  return {
    sizes,
    queries: int(values.queries ?? (values.quick ? "150" : "300"), "queries"),
    startRuns: int(values["start-runs"]!, "start-runs"),
    remembers: int(values.remembers ?? (values.quick ? "1000" : "2000"), "remembers"),
    seed: int(values.seed!, "seed"),
    ingestOnly: values["ingest-only"],
    ingestFiles: int(values["ingest-files"] ?? (values.quick ? "2000" : "10000"), "ingest-files"),
    bin: values.bin,
    keep: values.keep,
    markdown: values.markdown,
    cache: values.cache,
    backend: values.backend,
  };
}

function log(message: string): void {
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** A search path under test: runs one query, resolves with its number of hits. */
type SearchPath = (text: string) => number | Promise<number>;

/**
 * Times every path on every query, interleaved: query by query, the paths in an order rotated per
 * query, so load from elsewhere on a shared machine hits all paths alike. The first
 * WARMUP_QUERIES queries run once on every path unmeasured first.
 */
async function timeInterleaved(
  queries: Query[],
  paths: SearchPath[],
): Promise<{ latency: number[][]; hits: number[][] }> {
  for (const q of queries.slice(0, WARMUP_QUERIES)) for (const path of paths) await path(q.text);
  const latency = paths.map(() => [] as number[]);
  const hits = paths.map(() => [] as number[]);
  for (let i = 0; i < queries.length; i++) {
    for (let k = 0; k < paths.length; k++) {
      const p = (i + k) % paths.length;
      const t = performance.now();
      hits[p][i] = await paths[p](queries[i].text);
      latency[p][i] = performance.now() - t;
    }
  }
  return { latency, hits };
}

async function runSize(size: number, o: Options): Promise<SizeResult> {
  const label = sizeLabel(size);
  const dir = await Deno.makeTempDir({ prefix: `engram-bench-${label}-` });
  const file = `${dir}/engram.db`;
  try {
    const corpus = new Corpus(size, o.seed);
    log(`${label}: remembering ${size} notes in ${dir}`);
    const started = performance.now();
    const imported = await bulkRemember(file, corpus, size, (done) => {
      if (done % Math.max(1000, size / 10) === 0 || done === size) {
        log(`${label}: ${done} notes, ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    });
    const dbBytes = [file, `${file}-wal`].reduce((sum, f) => {
      try {
        return sum + Deno.statSync(f).size;
      } catch {
        return sum;
      }
    }, 0);
    const queries = buildQueries(corpus, o.queries);

    log(`${label}: start -> initialize, 1 warm-up + ${o.startRuns} runs`);
    await timeToInitialize(dir, o.bin);
    const startMs: number[] = [];
    for (let i = 0; i < o.startRuns; i++) startMs.push(await timeToInitialize(dir, o.bin));

    log(`${label}: idle RSS, then ${queries.length} queries on 5 paths, interleaved`);
    const config = `${dir}/bench.yaml`;
    await Deno.writeTextFile(config, `storage:\n  search_cache_mb: ${o.cache ? 16 : 0}\n`);
    const sdk = await connectSdk(dir, o.bin, ["--config", config]);
    let raw: RawSession | undefined;
    let floors: Floors | undefined;
    let idleRss, busyRss, timed;
    try {
      idleRss = await settledRss(sdk.pid);
      raw = new RawSession(dir, o.bin, ["--config", config]);
      await raw.initialize();
      floors = openFloors(file);
      const [r, f] = [raw, floors];
      timed = await timeInterleaved(queries, [
        (q) => sdkSearch(sdk.client, q),
        (q) => rawSearch(r, q),
        f.engram,
        f.raw,
        f.bare,
      ]);
      busyRss = readRss(sdk.pid);
    } finally {
      floors?.close();
      await raw?.close();
      await sdk.close();
    }
    const [sdkMs, rawMs, engramMs, ftsMs, bareMs] = timed.latency;
    const [sdkHits, rawHits, floorHits] = timed.hits;
    const mismatches = queries.filter((_, i) =>
      sdkHits[i] !== floorHits[i] || rawHits[i] !== floorHits[i]
    ).length;
    if (mismatches > 0) log(`${label}: WARNING ${mismatches} queries differ in hit count`);

    log(`${label}: ${o.remembers} more notes remembered one per transaction`);
    const single = await rememberEach(file, corpus, size, o.remembers);
    return {
      size,
      import: imported,
      dbBytes,
      queries,
      latency: { sdk: sdkMs, raw: rawMs, engram: engramMs, fts: ftsMs, bare: bareMs },
      hits: { stdio: sdkHits, inProcess: floorHits },
      idleRss,
      busyRss,
      startMs,
      rememberEach: single,
    };
  } finally {
    if (o.keep) log(`${label}: kept ${dir}`);
    else await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function output(cmd: string, args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "null" }).output();
    return new TextDecoder().decode(out.stdout).trim();
  } catch {
    return "?";
  }
}

/** The checkout's commit, and how many files under src/ differ from it (others may be editing). */
async function revision(): Promise<string> {
  const root = new URL("..", import.meta.url).pathname;
  const rev = await output("git", ["-C", root, "rev-parse", "--short", "HEAD"]);
  const changed = await output("git", ["-C", root, "status", "--porcelain", "--", "src"]);
  const n = changed ? changed.split("\n").length : 0;
  return n ? `${rev} + ${n} uncommitted file(s) in src/` : `${rev}, src/ clean`;
}

function loadAverage(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

async function main(): Promise<void> {
  const o = parseOptions(Deno.args);
  const revAtStart = await revision();
  if (o.backend === "postgres") return await postgresMain(o, revAtStart);
  const cpu = /model name\s*:\s*(.*)/.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? "?";
  const lines = [
    `date: ${new Date().toISOString()}`,
    `machine: ${navigator.hardwareConcurrency} cores (${cpu}), ${Deno.build.target}`,
    `deno: ${Deno.version.deno}, v8 ${Deno.version.v8}, typescript ${Deno.version.typescript}`,
    `server: ${o.bin ?? "deno run -q <ceiling flags> main.ts (from source)"}`,
    `load average at start: ${loadAverage()}`,
  ];
  const sizes = o.ingestOnly ? [] : o.sizes;
  log(
    o.ingestOnly
      ? `ingestion only, ${o.ingestFiles} files, seed ${o.seed}`
      : `sizes ${sizes.join(", ")}, ${o.queries} queries, ingestion on ${o.ingestFiles} files, ` +
        `seed ${o.seed}`,
  );
  const results: SizeResult[] = [];
  const started = performance.now();
  for (const size of sizes) results.push(await runSize(size, o));
  // The ingestion section always runs from source: it spawns `deno run main.ts ingest`.
  const ingest: IngestResult = await runIngest(new Corpus(o.ingestFiles, o.seed), o.ingestFiles, {
    keep: o.keep,
    log,
  });
  const revAtEnd = await revision();
  const searchOptions = o.ingestOnly
    ? "search sections skipped (--ingest-only)"
    : `sizes ${
      sizes.join(",")
    }, ${o.queries} queries (+${WARMUP_QUERIES} warm-up), ${o.remembers} single remembers`;
  lines.push(
    `load average at end: ${loadAverage()}`,
    `engram: ${revAtStart}` + (revAtEnd === revAtStart ? "" : `; at the end: ${revAtEnd}`),
    `options: ${searchOptions}; search cache ${o.cache ? "on (16 MiB)" : "off"}; ` +
      `ingestion on ${o.ingestFiles} files; seed ${o.seed}; ` +
      `total ${((performance.now() - started) / 1000).toFixed(0)} s`,
    "",
    mainTable(results, ingest),
    "",
  );
  if (results.length > 0) {
    lines.push(
      "p50 latency (ms) by query kind:",
      "",
      kindTable(results),
      "",
      ...importLines(results),
    );
  }
  lines.push(...ingestLines(ingest));
  if (o.markdown) {
    lines.push("", mainTable(results, ingest, true));
    if (results.length > 0) lines.push("", kindTable(results, true));
  }
  console.log(lines.join("\n"));
}

/** `--backend postgres`: the PostgreSQL bench, with the same header lines. */
async function postgresMain(o: Options, rev: string): Promise<void> {
  const started = performance.now();
  const head = [
    `date: ${new Date().toISOString()}`,
    `machine: ${navigator.hardwareConcurrency} cores, ${Deno.build.target}; deno ${Deno.version.deno}`,
    `engram: ${rev}`,
    `load average at start: ${loadAverage()}`,
  ];
  const text = await runPostgresBench({
    sizes: o.sizes,
    queries: o.queries,
    remembers: Math.min(o.remembers, 300),
    seed: o.seed,
    markdown: o.markdown,
    log,
  });
  head.push(
    `load average at end: ${loadAverage()}; total ${
      ((performance.now() - started) / 1000).toFixed(0)
    } s`,
    "",
  );
  console.log(head.join("\n") + text);
  // The throwaway cluster's admin connection keeps the event loop alive; exiting runs its
  // unload handler, which stops the cluster and removes its directory.
  Deno.exit(0);
}

if (import.meta.main) await main();

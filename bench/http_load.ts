/**
 * @module `deno task bench:http`: tools/call memory_search throughput and latency through a real
 * `engram serve` on loopback, at 1, 10 and 100 concurrent MCP sessions, against the same queries
 * in this process as the floor.
 *
 * A brain of --docs synthetic notes (bench/corpus.ts) is bulk-imported, a read token is created
 * with `engram tokens create` (so every request pays for bearer verification), and `engram serve`
 * starts on 127.0.0.1 port 0 with a config that lifts the per-client rate limit and session cap,
 * which would otherwise throttle the benchmark rather than measure the server. Per level: N
 * sessions are opened (initialize + notifications/initialized), driven by autocannon for --warmup
 * seconds unmeasured and then --duration seconds measured, one request in flight per session, and
 * closed again. Every answer's SSE stream is parsed; a non-200, a JSON-RPC or tool error, a wrong
 * id or a connection error counts as an error. Targets are reported, never asserted.
 *
 *   deno run --allow-all bench/http_load.ts [--docs 10000] [--duration 10] [--warmup 2]
 *     [--sessions 1,10,100] [--queries 300] [--seed N] [--reply tie|sse] [--no-cache] [--keep]
 *     [--markdown]
 *   --backend postgres: one node, then two nodes on one PostgreSQL database, at each level
 *     (bench/http_nodes.ts; needs Debian's postgresql package)
 */
import { parseArgs } from "node:util";
import { MemoryService } from "../src/core/memory_service.ts";
import { SearchInput } from "../src/core/schemas.ts";
import type { CallerContext } from "../src/core/types.ts";
import { openSqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import { buildQueries, Corpus, DEFAULT_SEED } from "./corpus.ts";
import {
  ACCEPT_SSE,
  ACCEPT_TIE,
  closeSession,
  driveSearch,
  type LoadResult,
  type McpSession,
  openSession,
} from "./http_driver.ts";
import { runNodesBench } from "./http_nodes.ts";
import { bulkRemember, openFloors } from "./inprocess.ts";
import { cpuMs, createToken, spawnServe } from "./serve_process.ts";
import { markdownTable, ms, summarize, type Summary, table } from "./stats.ts";
import { readRss, settledRss } from "./stdio_client.ts";

/** Target: calls/s at 10 sessions. */
const THROUGHPUT_TARGET = 2000;
/** Target: p99 ms at 100 sessions. */
const P99_TARGET_MS = 50;
/** Queries run unmeasured in process before the floor pass. */
const WARMUP_QUERIES = 30;

/** The caller of the in-process floor: a read-tier HTTP client, like the benchmark's token. */
const CALLER: CallerContext = { clientId: "bench", transport: "http", tier: "read", brains: "*" };

interface Options {
  docs: number;
  durationS: number;
  warmupS: number;
  sessions: number[];
  queries: number;
  seed: number;
  keep: boolean;
  markdown: boolean;
  /** `tie`: Accept as the SDK client sends it (plain calls answered as JSON); `sse`: SSE preferred. */
  reply: "tie" | "sse";
  /** Runs the server with `storage.search_cache_mb: 0`: every call searches (the cold path). */
  noCache: boolean;
  /** `postgres`: one and two nodes on PostgreSQL (bench/http_nodes.ts) instead. */
  backend: "sqlite" | "postgres";
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      docs: { type: "string", default: "10000" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      sessions: { type: "string", default: "1,10,100" },
      queries: { type: "string", default: "300" },
      seed: { type: "string", default: String(DEFAULT_SEED) },
      keep: { type: "boolean", default: false },
      markdown: { type: "boolean", default: false },
      reply: { type: "string", default: "tie" },
      "no-cache": { type: "boolean", default: false },
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
  return {
    docs: int(values.docs!, "docs"),
    durationS: int(values.duration!, "duration"),
    warmupS: int(values.warmup!, "warmup"),
    sessions: values.sessions!.split(",").map((s) => int(s.trim(), "sessions")),
    queries: int(values.queries!, "queries"),
    seed: int(values.seed!, "seed"),
    keep: values.keep,
    markdown: values.markdown,
    reply: replyOption(values.reply!),
    noCache: values["no-cache"],
    backend: values.backend,
  };
}

function replyOption(value: string): Options["reply"] {
  if (value !== "tie" && value !== "sse") throw new Error("--reply wants tie or sse");
  return value;
}

function log(message: string): void {
  console.error(`[bench:http ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** The in-process floor: each query through searchChunks and through MemoryService.search. */
interface Floor {
  searchChunks: Summary;
  service: Summary;
}

async function measureFloor(file: string, queries: string[]): Promise<Floor> {
  const floors = openFloors(file);
  const storage = openSqliteStorage(file);
  const service = new MemoryService(storage);
  // Parsed up front, as the server's tool layer does before it reaches the service.
  const args = new Map(queries.map((q) => [q, SearchInput.parse({ query: q })]));
  try {
    for (const q of queries.slice(0, WARMUP_QUERIES)) {
      floors.searchChunks(q);
      await service.search(CALLER, args.get(q)!);
    }
    const chunks: number[] = [];
    const svc: number[] = [];
    for (const q of queries) {
      let t = performance.now();
      floors.searchChunks(q);
      chunks.push(performance.now() - t);
      t = performance.now();
      await service.search(CALLER, args.get(q)!);
      svc.push(performance.now() - t);
    }
    return { searchChunks: summarize(chunks), service: summarize(svc) };
  } finally {
    floors.close();
    storage.close();
  }
}

/** One measured level, with what the server spent on it. */
interface Level {
  load: LoadResult;
  latency: Summary;
  callsPerS: number;
  errors: number;
  /** Server CPU (user + system) per answered call, ms. */
  cpuPerCall: number;
  rss: { rss: number; hwm: number };
}

async function runLevel(
  mcp: string,
  options: { pid: number; token: string; sessions: number; queries: string[]; o: Options },
): Promise<Level> {
  const { pid, token, queries, o } = options;
  const sessions: McpSession[] = [];
  const accept = o.reply === "sse" ? ACCEPT_SSE : ACCEPT_TIE;
  for (let i = 0; i < options.sessions; i++) sessions.push(await openSession(mcp, token, accept));
  try {
    await driveSearch(mcp, { sessions, queries, durationS: o.warmupS });
    const cpu0 = cpuMs(pid);
    const load = await driveSearch(mcp, { sessions, queries, durationS: o.durationS });
    const cpu = cpuMs(pid) - cpu0;
    const errors = load.rpcErrors + load.connErrors +
      Object.values(load.statuses).reduce((a, b) => a + b, 0);
    return {
      load,
      latency: summarize(load.latency),
      callsPerS: load.ok / (load.wallMs / 1000),
      errors,
      cpuPerCall: cpu / Math.max(1, load.latency.length),
      rss: readRss(pid),
    };
  } finally {
    for (const s of sessions) await closeSession(mcp, s);
  }
}

function loadAverage(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

async function revision(): Promise<string> {
  const root = new URL("..", import.meta.url).pathname;
  const git = (args: string[]) =>
    new Deno.Command("git", { args: ["-C", root, ...args], stdout: "piped", stderr: "null" })
      .output().then((o) => new TextDecoder().decode(o.stdout).trim()).catch(() => "?");
  const rev = await git(["rev-parse", "--short", "HEAD"]);
  const changed = await git(["status", "--porcelain", "--", "src"]);
  const n = changed ? changed.split("\n").length : 0;
  return n ? `${rev} + ${n} uncommitted file(s) in src/` : `${rev}, src/ clean`;
}

function report(
  o: Options,
  r: { floor: Floor; levels: Level[]; idleRss: number; header: string[] },
): string {
  const floorMean = r.floor.service.mean;
  const floorRate = 1000 / floorMean;
  const header = [
    "sessions",
    "calls/s",
    "p50 ms",
    "p99 ms",
    "max ms",
    "errors",
    "x floor calls/s",
    "x floor p50",
    "server CPU/call ms",
    "server RSS / peak MiB",
  ];
  const rows = r.levels.map((l) => [
    String(l.load.sessions),
    l.callsPerS.toFixed(0),
    ms(l.latency.p50),
    ms(l.latency.p99),
    ms(l.latency.max),
    `${l.errors} / ${l.load.latency.length}`,
    (l.callsPerS / floorRate).toFixed(2),
    (l.latency.p50 / r.floor.service.p50).toFixed(1),
    ms(l.cpuPerCall),
    `${l.rss.rss.toFixed(1)} / ${l.rss.hwm.toFixed(1)}`,
  ]);
  const at = (n: number) => r.levels.find((l) => l.load.sessions === n);
  const targets: string[][] = [];
  const t10 = at(10);
  if (t10) {
    const pass = t10.callsPerS >= THROUGHPUT_TARGET && t10.errors === 0;
    targets.push([
      "calls/s at 10 sessions",
      t10.callsPerS.toFixed(0),
      `>= ${THROUGHPUT_TARGET}, no errors`,
      pass ? "PASS" : "FAIL",
    ]);
  }
  const t100 = at(100);
  if (t100) {
    const pass = t100.latency.p99 < P99_TARGET_MS && t100.errors === 0;
    targets.push([
      "p99 at 100 sessions",
      `${ms(t100.latency.p99)} ms`,
      `< ${P99_TARGET_MS} ms, no errors`,
      pass ? "PASS" : "FAIL",
    ]);
  }
  const f = r.floor;
  const lines = [
    ...r.header,
    `floor, in process, ${o.queries} queries one at a time: MemoryService.search p50 ${
      ms(f.service.p50)
    } / p99 ${ms(f.service.p99)} / mean ${ms(f.service.mean)} ms (= ${
      floorRate.toFixed(0)
    } calls/s on one thread); searchChunks p50 ${ms(f.searchChunks.p50)} / p99 ${
      ms(f.searchChunks.p99)
    } / mean ${ms(f.searchChunks.mean)} ms`,
    `server idle RSS before the load: ${r.idleRss.toFixed(1)} MiB`,
    "",
    table(header, rows),
    "",
    table(["target", "measured", "wanted", "result"], targets),
  ];
  for (const l of r.levels) {
    if (l.load.samples.length > 0) {
      lines.push(`errors at ${l.load.sessions} sessions, first few: ${l.load.samples.join("; ")}`);
    }
  }
  if (o.markdown) {
    lines.push(
      "",
      markdownTable(header, rows),
      "",
      markdownTable(["target", "measured", "wanted", "result"], targets),
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const o = parseOptions(Deno.args);
  const started = performance.now();
  const cpu = /model name\s*:\s*(.*)/.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? "?";
  const header = [
    `date: ${new Date().toISOString()}`,
    `machine: ${navigator.hardwareConcurrency} cores (${cpu}), ${Deno.build.target}; the load ` +
    `generator runs in this process on the same cores as the server`,
    `deno: ${Deno.version.deno}; engram: ${await revision()}`,
    `load average at start: ${loadAverage()}`,
  ];
  if (o.backend === "postgres") {
    const text = await runNodesBench({ ...o, cache: !o.noCache, log });
    console.log([...header, `load average at end: ${loadAverage()}`, "", text].join("\n"));
    // The throwaway cluster's admin connection keeps the event loop alive; exiting runs its
    // unload handler, which stops the cluster.
    Deno.exit(0);
  }
  const dir = await Deno.makeTempDir({ prefix: "engram-bench-http-" });
  const file = `${dir}/engram.db`;
  try {
    const corpus = new Corpus(o.docs, o.seed);
    log(`remembering ${o.docs} notes in ${dir}`);
    await bulkRemember(file, corpus, o.docs);
    const queries = buildQueries(corpus, o.queries).map((q) => q.text);
    log(`floor: ${queries.length} queries in process`);
    const floor = await measureFloor(file, queries);

    const config = `${dir}/bench.yaml`;
    // The defaults (600 requests/min, 32 sessions per client) would throttle the benchmark.
    await Deno.writeTextFile(
      config,
      "server:\n  requests_per_minute: 100000000\n  max_sessions_per_client: 10000\n" +
        (o.noCache ? "storage:\n  search_cache_mb: 0\n" : ""),
    );
    const token = await createToken(dir, "bench");
    const serve = await spawnServe(dir, config);
    const mcp = `${serve.url}/mcp`;
    log(`engram serve at ${mcp} (pid ${serve.pid})`);
    const levels: Level[] = [];
    let idleRss = 0;
    try {
      idleRss = (await settledRss(serve.pid)).rss;
      for (const n of o.sessions) {
        log(`${n} session(s): ${o.warmupS} s warm-up, ${o.durationS} s measured`);
        const level = await runLevel(mcp, { pid: serve.pid, token, sessions: n, queries, o });
        log(
          `${n} session(s): ${level.callsPerS.toFixed(0)} calls/s, p50 ${
            ms(level.latency.p50)
          } ms, p99 ${ms(level.latency.p99)} ms, ${level.errors} errors`,
        );
        levels.push(level);
      }
    } finally {
      const stopped = await serve.stop();
      if (stopped.code !== 0) log(`engram serve exited ${stopped.code}:\n${stopped.stderr}`);
    }
    header.push(
      `load average at end: ${loadAverage()}`,
      `options: ${o.docs} notes, ${queries.length} queries, sessions ${o.sessions.join(",")}, ` +
        `Accept "${o.reply === "sse" ? ACCEPT_SSE : ACCEPT_TIE}" (--reply ${o.reply}), ` +
        `search cache ${o.noCache ? "off (--no-cache)" : "on (16 MiB)"}, ` +
        `${o.warmupS} s warm-up + ${o.durationS} s per level, seed ${o.seed}; ` +
        `total ${((performance.now() - started) / 1000).toFixed(0)} s`,
      "",
    );
    console.log(report(o, { floor, levels, idleRss, header }));
  } finally {
    if (o.keep) log(`kept ${dir}`);
    else await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();

/**
 * @module `deno task bench:http --backend postgres`: memory_search load through one `engram serve`
 * node on PostgreSQL, then through two nodes on the same database, at each number of sessions
 * (split evenly between the nodes), as a load balancer with session affinity would spread them.
 *
 * The brain (--docs synthetic notes) is bulk-imported into a throwaway PostgreSQL cluster
 * (tests/storage/postgres/_cluster.ts) and vacuumed, a read token is made with
 * `engram tokens create`, and the nodes run with the per-client rate limit and session cap lifted
 * and, unless --cache, the search cache off, so every call reaches the database. The load
 * generator (autocannon, bench/http_driver.ts) runs in this process. On a machine with fewer cores
 * than nodes + database + load generator, the second node measures contention for the cores, not
 * scaling: the report says how many cores there were, and the CPU each side used per call.
 */
import { type Cluster, startCluster } from "../tests/storage/postgres/_cluster.ts";
import { buildQueries, Corpus } from "./corpus.ts";
import {
  ACCEPT_TIE,
  closeSession,
  driveSearch,
  type LoadResult,
  type McpSession,
  openSession,
} from "./http_driver.ts";
import { pgBulkRemember } from "./postgres_bench.ts";
import { cpuMs, engramOutput, type ServeProcess, spawnServe } from "./serve_process.ts";
import { markdownTable, ms, sizeLabel, summarize, table } from "./stats.ts";
import postgres from "postgres";

/** What the nodes bench is told. */
export interface NodesOptions {
  docs: number;
  durationS: number;
  warmupS: number;
  sessions: number[];
  queries: number;
  seed: number;
  cache: boolean;
  markdown: boolean;
  log: (message: string) => void;
}

/** One measured level: sessions over `nodes` nodes. */
interface Level {
  sessions: number;
  nodes: number;
  callsPerS: number;
  p50: number;
  p99: number;
  errors: number;
  calls: number;
  /** CPU per answered call, ms: the engram nodes together, and PostgreSQL's processes. */
  nodeCpu: number;
  dbCpu: number;
}

/** Runs one node, then two, at each level; returns the report. */
export async function runNodesBench(o: NodesOptions): Promise<string> {
  const cluster = await startCluster();
  if ("skip" in cluster) throw new Error(cluster.skip);
  const db = await cluster.createEmptyDatabase();
  const dirs: string[] = [];
  const nodes: ServeProcess[] = [];
  try {
    const corpus = new Corpus(o.docs, o.seed);
    o.log(`remembering ${o.docs} notes into PostgreSQL ${cluster.version}`);
    await pgBulkRemember(db.url, corpus, o.docs, () => {});
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    let postmaster: number;
    try {
      await sql`VACUUM ANALYZE`;
      const [{ dir }] =
        await sql`SELECT setting AS dir FROM pg_settings WHERE name = 'data_directory'`;
      postmaster = Number(Deno.readTextFileSync(`${dir}/postmaster.pid`).split("\n")[0]);
    } finally {
      await sql.end();
    }
    const queries = buildQueries(corpus, o.queries).map((q) => q.text);
    for (let i = 0; i < 2; i++) {
      dirs.push(await Deno.makeTempDir({ prefix: `engram-bench-node${i}-` }));
    }
    const config = `${dirs[0]}/bench.yaml`;
    await Deno.writeTextFile(config, nodeConfig(db.url, o.cache));
    const token = (await engramOutput(dirs[0], [
      "tokens",
      "create",
      "--client",
      "bench",
      "--tier",
      "read",
      "--config",
      config,
    ])).trim().split("\n")[0];
    for (const d of dirs) nodes.push(await spawnServe(d, config));
    o.log(`nodes at ${nodes.map((n) => n.url).join(", ")}`);
    const levels: Level[] = [];
    for (const sessions of o.sessions) {
      for (const count of [1, 2]) {
        o.log(
          `${sessions} session(s) on ${count} node(s): ${o.warmupS} s warm-up, ${o.durationS} s measured`,
        );
        const level = await runLevel(nodes.slice(0, count), {
          sessions,
          token,
          queries,
          postmaster,
          o,
        });
        o.log(
          `  ${level.callsPerS.toFixed(0)} calls/s, p50 ${ms(level.p50)} ms, p99 ${
            ms(level.p99)
          } ms, ${level.errors} errors`,
        );
        levels.push(level);
      }
    }
    return report(levels, o, cluster);
  } finally {
    for (const n of nodes) {
      const stopped = await n.stop();
      if (stopped.code !== 0) o.log(`engram serve exited ${stopped.code}:\n${stopped.stderr}`);
    }
    await db.drop();
    for (const d of dirs) await Deno.remove(d, { recursive: true }).catch(() => {});
  }
}

/** The nodes' config: the database; no rate limit or session cap in the way; the cache as asked. */
function nodeConfig(url: string, cache: boolean): string {
  return [
    "storage:",
    "  backend: postgres",
    // The throwaway cluster trusts loopback: the URL holds no password.
    `  url: ${JSON.stringify(url)}`,
    "  pool_size: 10",
    ...(cache ? [] : ["  search_cache_mb: 0"]),
    "server:",
    "  requests_per_minute: 100000000",
    "  max_sessions_per_client: 10000",
    "",
  ].join("\n");
}

/** CPU used so far by PostgreSQL's postmaster and every process under it, ms. */
function postgresCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster);
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) total += cpuMs(Number(entry.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

async function runLevel(
  nodes: ServeProcess[],
  a: { sessions: number; token: string; queries: string[]; postmaster: number; o: NodesOptions },
): Promise<Level> {
  const mcps = nodes.map((n) => `${n.url}/mcp`);
  // Sessions dealt round-robin, as a balancer with affinity spreads new sessions.
  const sessions: McpSession[][] = nodes.map(() => []);
  for (let i = 0; i < a.sessions; i++) {
    sessions[i % nodes.length].push(await openSession(mcps[i % nodes.length], a.token, ACCEPT_TIE));
  }
  const drive = (durationS: number) =>
    Promise.all(
      mcps.flatMap((mcp, k) =>
        sessions[k].length
          ? [driveSearch(mcp, { sessions: sessions[k], queries: a.queries, durationS })]
          : []
      ),
    );
  try {
    await drive(a.o.warmupS);
    const cpu0 = nodes.reduce((n, p) => n + cpuMs(p.pid), 0);
    const db0 = postgresCpuMs(a.postmaster);
    const results: LoadResult[] = await drive(a.o.durationS);
    const nodeCpu = nodes.reduce((n, p) => n + cpuMs(p.pid), 0) - cpu0;
    const dbCpu = postgresCpuMs(a.postmaster) - db0;
    const latency = results.flatMap((r) => r.latency);
    const ok = results.reduce((n, r) => n + r.ok, 0);
    const wall = Math.max(...results.map((r) => r.wallMs));
    const errors = results.reduce(
      (n, r) =>
        n + r.rpcErrors + r.connErrors + Object.values(r.statuses).reduce((x, y) => x + y, 0),
      0,
    );
    const s = summarize(latency);
    return {
      sessions: a.sessions,
      nodes: nodes.length,
      callsPerS: ok / (wall / 1000),
      p50: s.p50,
      p99: s.p99,
      errors,
      calls: latency.length,
      nodeCpu: nodeCpu / Math.max(1, latency.length),
      dbCpu: dbCpu / Math.max(1, latency.length),
    };
  } finally {
    for (const [k, list] of sessions.entries()) {
      for (const s of list) await closeSession(mcps[k], s);
    }
  }
}

function report(levels: Level[], o: NodesOptions, cluster: Cluster): string {
  const header = [
    "sessions",
    "nodes",
    "calls/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "calls/s vs 1 node",
    "engram CPU/call ms",
    "PostgreSQL CPU/call ms",
  ];
  const rows = levels.map((l) => {
    const one = levels.find((x) => x.sessions === l.sessions && x.nodes === 1)!;
    return [
      String(l.sessions),
      String(l.nodes),
      l.callsPerS.toFixed(0),
      ms(l.p50),
      ms(l.p99),
      `${l.errors} / ${l.calls}`,
      `${(l.callsPerS / one.callsPerS).toFixed(2)}×`,
      ms(l.nodeCpu),
      ms(l.dbCpu),
    ];
  });
  const lines = [
    `${
      sizeLabel(o.docs)
    } notes on PostgreSQL ${cluster.version} (throwaway cluster, loopback); memory_search, ` +
    `search cache ${
      o.cache ? "on" : "off"
    }; ${o.warmupS} s warm-up + ${o.durationS} s per level; ` +
    `${navigator.hardwareConcurrency} cores shared by the nodes, PostgreSQL and the load generator`,
    "",
    table(header, rows),
  ];
  if (o.markdown) lines.push("", markdownTable(header, rows));
  return lines.join("\n");
}

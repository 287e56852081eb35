/**
 * @module `deno task bench:retrieval FILE`: does memory_search bring back the right memory?
 *
 * Reads a LoCoMo-format JSON file (bench/locomo.ts), spawns the real `engram stdio` (SDK client,
 * tools/list first) on a fresh data directory, and loads each selected conversation into brains
 * of its own through memory_create_brain and memory_remember: one brain with a document per dialog
 * turn, one with a document per session. Every question is then asked through memory_search
 * (top_k 10) and, in the same run, of the raw FTS5 baseline (bench/fts_baseline.ts). Prints R@1,
 * R@5 and R@10 per unit for both. The server runs with `storage.search_cache_mb: 0`: every question
 * is searched, none answered from the cache.
 *
 *   deno task bench:retrieval bench/data/locomo10.json --conversations 0-4    (develop on these)
 *   deno task bench:retrieval bench/data/locomo10.json --conversations 5-9    (held out: report)
 *   --units turn,session   --top-k 10   --group document|chunk (default: the server's)
 *   --markdown (tables for bench/RESULTS.md)   --json FILE (every question's ranked units)
 *   --keep (keep the data directory)   --bin ./dist/engram
 *   --embeddings FILE: with vector search, through an OpenAI-compatible embedding server on
 *     loopback serving GloVe sentence vectors from FILE (bench/embedding_server.ts says where to
 *     get it); engram then fuses full text and vectors as it does with any embedding provider.
 *   --backend postgres: the server stores in a database of a throwaway PostgreSQL cluster
 *     (tests/storage/postgres/_cluster.ts; needs Debian's postgresql package) instead of SQLite.
 */
import { parseArgs } from "node:util";
import type { CallToolResult } from "../src/mcp/sdk.ts";
import { FtsBaseline } from "./fts_baseline.ts";
import {
  type Conversation,
  parseLocomo,
  type Question,
  selectIndexes,
  type Unit,
} from "./locomo.ts";
import { CUTOFFS, fmt, type Ranked, recallAt } from "./recall_metrics.ts";
import { markdownTable, ms, summarize, table } from "./stats.ts";
import { connectSdk, type SdkSession } from "./stdio_client.ts";
import { type EmbeddingServer, startEmbeddingServer } from "./embedding_server.ts";
import { startCluster } from "../tests/storage/postgres/_cluster.ts";

/** Calls in flight at once while loading (the server still applies them one by one). */
const LOAD_CONCURRENCY = 8;

interface Options {
  file: string;
  conversations?: string;
  units: Unit[];
  topK: number;
  group?: string;
  markdown: boolean;
  json?: string;
  keep: boolean;
  bin?: string;
  embeddings?: string;
  backend: "sqlite" | "postgres";
}

function parseOptions(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      conversations: { type: "string" },
      units: { type: "string", default: "turn,session" },
      "top-k": { type: "string", default: "10" },
      group: { type: "string" },
      markdown: { type: "boolean", default: false },
      json: { type: "string" },
      keep: { type: "boolean", default: false },
      bin: { type: "string" },
      embeddings: { type: "string" },
      backend: { type: "string", default: "sqlite" },
    },
  });
  if (values.backend !== "sqlite" && values.backend !== "postgres") {
    throw new Error("--backend wants sqlite or postgres");
  }
  if (positionals.length !== 1) {
    throw new Error("usage: deno task bench:retrieval FILE [--conversations 0-4] [options]");
  }
  const units = values.units.split(",").map((u) => u.trim());
  for (const u of units) {
    if (u !== "turn" && u !== "session") throw new Error(`--units: turn or session, not "${u}"`);
  }
  const topK = Number(values["top-k"]);
  if (!Number.isInteger(topK) || topK < 10 || topK > 100) {
    throw new Error("--top-k wants an integer 10..100 (R@10 needs 10 results)");
  }
  return {
    file: positionals[0],
    conversations: values.conversations,
    units: units as Unit[],
    topK,
    group: values.group,
    markdown: values.markdown,
    json: values.json,
    keep: values.keep,
    bin: values.bin,
    embeddings: values.embeddings,
    backend: values.backend,
  };
}

/**
 * The server's config: no result cache (every question searched); the PostgreSQL database and the
 * embedder when given.
 */
function engramConfig(embedder?: EmbeddingServer, postgresUrl?: string): string {
  const lines = ["storage:", "  search_cache_mb: 0"];
  // The throwaway cluster trusts loopback: the URL holds no password.
  if (postgresUrl) lines.push("  backend: postgres", `  url: ${JSON.stringify(postgresUrl)}`);
  if (embedder) {
    lines.push(
      "providers:",
      "  - type: openai",
      "    name: glove",
      `    base_url: ${embedder.url}`,
      "    model: none",
      `    embedding_model: ${embedder.model}`,
    );
  }
  return lines.join("\n") + "\n";
}

function log(message: string): void {
  console.error(`[retrieval ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** Calls a tool; throws with the server's text on a tool error. */
async function call(
  sdk: SdkSession,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const r = await sdk.client.callTool({ name, arguments: args }) as CallToolResult;
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Record<string, unknown>;
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
async function eachLimited<T>(items: T[], limit: number, fn: (t: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** One question's outcome for one unit and system. */
interface Outcome extends Ranked {
  conversation: number;
  question: string;
  category: number;
}

/** Per unit: engram's and the baseline's outcomes, and engram's search latencies. */
interface UnitRun {
  engram: Outcome[];
  baseline: Outcome[];
  latency: number[];
  documents: number;
}

/** Loads one conversation as documents of `o.unit` into a new brain and asks its questions. */
async function loadAndAsk(
  sdk: SdkSession,
  conv: Conversation,
  o: { unit: Unit; options: Options; into: UnitRun },
): Promise<void> {
  const { unit, into } = o;
  const docs = unit === "turn" ? conv.turnDocuments : conv.sessionDocuments;
  const slug = `locomo-${conv.index}-${unit}`;
  await call(sdk, "memory_create_brain", { name: `LoCoMo ${conv.sampleId} by ${unit}`, slug });
  const started = performance.now();
  await eachLimited(docs, LOAD_CONCURRENCY, async (d) => {
    await call(sdk, "memory_remember", {
      brain: slug,
      path: d.path,
      title: d.title,
      content: d.content,
    });
  });
  log(
    `${slug}: ${docs.length} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  into.documents += docs.length;
  const unitOf = new Map(docs.map((d) => [d.path, d.unit]));
  using baseline = new FtsBaseline(docs);
  const wanted = (q: Question) => unit === "turn" ? q.turns : q.sessions;
  for (const q of conv.questions) {
    const t = performance.now();
    const out = await call(sdk, "memory_search", {
      brain: slug,
      query: q.text,
      top_k: o.options.topK,
      ...(o.options.group ? { group: o.options.group } : {}),
    });
    into.latency.push(performance.now() - t);
    const hits = out.hits as { path: string }[];
    const base = { conversation: conv.index, question: q.text, category: q.category };
    into.engram.push({ ...base, wanted: wanted(q), got: hits.map((h) => unitOf.get(h.path)!) });
    into.baseline.push({
      ...base,
      wanted: wanted(q),
      got: baseline.search(q.text, o.options.topK),
    });
  }
}

function resultRows(unit: Unit, run: UnitRun, vectors: boolean): string[][] {
  const row = (system: string, outcomes: Outcome[]) => {
    const r = recallAt(outcomes);
    return [
      unit,
      system,
      String(r.questions),
      ...CUTOFFS.map((k) => fmt(r.any[k])),
      ...CUTOFFS.map((k) => fmt(r.fraction[k])),
    ];
  };
  return [
    row(unit, run.engram).with(1, vectors ? "engram + GloVe vectors" : "engram memory_search"),
    row(unit, run.baseline).with(1, "raw FTS5 (bm25, OR)"),
  ];
}

function categoryRows(unit: Unit, run: UnitRun): string[][] {
  const rows: string[][] = [];
  for (const c of [1, 2, 3, 4]) {
    const e = recallAt(run.engram.filter((x) => x.category === c));
    const b = recallAt(run.baseline.filter((x) => x.category === c));
    rows.push([
      unit,
      String(c),
      String(e.questions),
      fmt(e.any[5]),
      fmt(b.any[5]),
      fmt(e.any[10]),
      fmt(b.any[10]),
    ]);
  }
  return rows;
}

async function main(): Promise<void> {
  const o = parseOptions(Deno.args);
  const all = parseLocomo(await Deno.readTextFile(o.file));
  const chosen = selectIndexes(o.conversations, all.length).map((i) => all[i]);
  const dir = await Deno.makeTempDir({ prefix: "engram-retrieval-" });
  let embedder: EmbeddingServer | undefined;
  if (o.embeddings) {
    log(`loading word vectors from ${o.embeddings}`);
    embedder = await startEmbeddingServer(o.embeddings);
  }
  let postgresUrl: string | undefined;
  if (o.backend === "postgres") {
    const cluster = await startCluster();
    if ("skip" in cluster) throw new Error(cluster.skip);
    postgresUrl = (await cluster.createEmptyDatabase()).url;
    log(`PostgreSQL ${cluster.version}: a throwaway cluster on loopback`);
  }
  await Deno.writeTextFile(`${dir}/engram.yaml`, engramConfig(embedder, postgresUrl));
  log(
    `${chosen.length} conversation(s) [${chosen.map((c) => c.index).join(",")}], ` +
      `${
        chosen.reduce((n, c) => n + c.questions.length, 0)
      } questions, units ${o.units}, in ${dir}`,
  );
  const runs = new Map<Unit, UnitRun>(
    o.units.map((u) => [u, { engram: [], baseline: [], latency: [], documents: 0 }]),
  );
  const started = performance.now();
  const sdk = await connectSdk(dir, o.bin, ["--tier", "admin", "--config", `${dir}/engram.yaml`]);
  try {
    for (const conv of chosen) {
      for (const unit of o.units) {
        await loadAndAsk(sdk, conv, { unit, options: o, into: runs.get(unit)! });
      }
    }
  } finally {
    await sdk.close();
    await embedder?.[Symbol.asyncDispose]();
    if (o.keep) log(`kept ${dir}`);
    else await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const header = ["unit", "system", "questions", "R@1", "R@5", "R@10", "all@1", "all@5", "all@10"];
  const rows = [...runs].flatMap(([unit, run]) => resultRows(unit, run, !!o.embeddings));
  const catHeader = [
    "unit",
    "category",
    "questions",
    "engram R@5",
    "FTS5 R@5",
    "engram R@10",
    "FTS5 R@10",
  ];
  const catRows = [...runs].flatMap(([unit, run]) => categoryRows(unit, run));
  const latency = [...runs].map(([unit, run]) => {
    const s = summarize(run.latency);
    return `${unit}: ${run.documents} documents; memory_search via stdio p50 ${ms(s.p50)} / p99 ${
      ms(s.p99)
    } ms (uncached)`;
  });
  const lines = [
    `date: ${new Date().toISOString()}`,
    `file: ${o.file}; conversations ${chosen.map((c) => c.index).join(",")}; top_k ${o.topK}` +
    `; storage ${o.backend}` +
    (o.embeddings ? `; vectors ${o.embeddings}` : "") +
    (o.group ? `; group ${o.group}` : "") +
    `; total ${((performance.now() - started) / 1000).toFixed(0)} s`,
    ...latency,
    "R@k: share of questions with an evidence unit in the top k; all@k: mean share of a question's evidence units there.",
    "",
    table(header, rows),
    "",
    table(catHeader, catRows),
  ];
  if (o.markdown) {
    lines.push("", markdownTable(header, rows), "", markdownTable(catHeader, catRows));
  }
  console.log(lines.join("\n"));
  if (o.json) {
    await Deno.writeTextFile(o.json, JSON.stringify(Object.fromEntries(runs), null, 1));
  }
  // The throwaway cluster's admin connection keeps the event loop alive; exiting runs its unload
  // handler, which stops the cluster.
  if (postgresUrl) Deno.exit(0);
}

if (import.meta.main) await main();

/**
 * @module memory_search latency while another process imports: reads should not wait for writes.
 *
 *   deno run --allow-all bench/contention.ts [--docs 10000] [--queries 80] [--seconds 15]
 *
 * Imports --docs notes, connects an SDK client to `engram stdio`, times a set of cheap queries
 * (rare words, two words, phrases) alone, then again while a second process (this file with
 * --writer) keeps importing in units of work of 200, as `engram ingest` does. The same
 * queries through `searchChunks` in this process show what the reads alone cost meanwhile (WAL
 * readers never wait for the writer).
 */
import { parseArgs } from "node:util";
import { buildQueries, Corpus, DEFAULT_SEED } from "./corpus.ts";
import { bulkRemember, IMPORT_BATCH, openFloors } from "./inprocess.ts";
import { MemoryService } from "../src/core/memory_service.ts";
import type { CallerContext } from "../src/core/types.ts";
import { openSqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import { connectSdk, sdkSearch } from "./stdio_client.ts";
import { ms, summarize, type Summary, table } from "./stats.ts";

const CALLER: CallerContext = { clientId: "writer", transport: "cli", tier: "admin", brains: "*" };

/** The writer process: batches of notes from `from` on, for `seconds`. */
async function writer(file: string, from: number, seconds: number, seed: number): Promise<void> {
  const corpus = new Corpus(from, seed);
  const storage = openSqliteStorage(file);
  const service = new MemoryService(storage);
  const end = performance.now() + seconds * 1000;
  try {
    for (let i = from; performance.now() < end; i += IMPORT_BATCH) {
      const notes = Array.from({ length: IMPORT_BATCH }, (_, k) => corpus.note(i + k));
      await storage.units.withTransaction(async () => {
        for (const n of notes) {
          await service.remember(CALLER, { content: n.content, path: n.path, tags: n.tags });
        }
      });
      await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    storage.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      docs: { type: "string", default: "10000" },
      queries: { type: "string", default: "80" },
      seconds: { type: "string", default: "15" },
      seed: { type: "string", default: String(DEFAULT_SEED) },
      writer: { type: "string" },
    },
  });
  const [n, seconds, seed] = [Number(values.docs), Number(values.seconds), Number(values.seed)];
  if (values.writer) return await writer(values.writer, n, seconds, seed);

  const dir = await Deno.makeTempDir({ prefix: "engram-contention-" });
  const file = `${dir}/engram.db`;
  const corpus = new Corpus(n, seed);
  console.error(`importing ${n} notes`);
  await bulkRemember(file, corpus, n);
  const cheap = new Set(["rare word", "two words", "phrase"]);
  const queries = buildQueries(corpus, 4 * Number(values.queries))
    .filter((q) => cheap.has(q.kind)).slice(0, Number(values.queries));
  const sdk = await connectSdk(dir);
  const floors = openFloors(file);
  const measure = async () => {
    const stdio: number[] = [];
    const local: number[] = [];
    for (const q of queries) {
      let t = performance.now();
      await sdkSearch(sdk.client, q.text);
      stdio.push(performance.now() - t);
      t = performance.now();
      floors.searchChunks(q.text);
      local.push(performance.now() - t);
    }
    return [summarize(stdio), summarize(local)];
  };
  try {
    await measure();
    const alone = await measure();
    console.error(`searching while a second process imports for ${seconds} s`);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", new URL(import.meta.url).pathname, "--writer", file, "--docs"]
        .concat([String(n), "--seconds", String(seconds), "--seed", String(seed)]),
      stdout: "null",
    }).spawn();
    await new Promise((r) => setTimeout(r, 1500));
    const during = await measure();
    await child.status;
    const row = (label: string, s: Summary) => [label, ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max)];
    console.log(table(["memory_search (ms)", "p50", "p90", "p99", "max"], [
      row("stdio, alone", alone[0]),
      row("stdio, during import", during[0]),
      row("searchChunks in process, alone", alone[1]),
      row("searchChunks in process, during", during[1]),
    ]));
  } finally {
    floors.close();
    await sdk.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();

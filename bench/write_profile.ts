/**
 * @module Where bulk remember spends its time, per SQL statement, and what one change would buy.
 *
 *   deno run --allow-all bench/write_profile.ts [--docs 3000] [--seed N]
 *
 * Runs the bench's MemoryService import on a connection whose `prepare` and `exec` are wrapped on
 * the instance (src/ is untouched) to time every statement and transaction boundary: once with one
 * document per transaction (the memory_remember path), once in units of work of
 * BATCH documents (the `engram ingest` path). A what-if then drops the per-document SAVEPOINT that
 * `transaction()` opens inside a batch (FTS5 flushes its pending terms at every savepoint); it
 * estimates a fix in src/ and is not the shipped code path.
 */
import { parseArgs } from "node:util";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { ensureDefaultBrain } from "../src/core/brains.ts";
import { MemoryService } from "../src/core/memory_service.ts";
import type { CallerContext } from "../src/core/types.ts";
import { openDatabase } from "../src/storage/sqlite/database.ts";
import { SqliteConnection } from "../src/storage/sqlite/sqlite_connection.ts";
import { SqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import { Corpus, DEFAULT_SEED, type Note } from "./corpus.ts";
import { table } from "./stats.ts";

/** Documents per unit of work, as in `engram ingest`. */
const BATCH = 200;

const CALLER: CallerContext = { clientId: "bench", transport: "cli", tier: "admin", brains: "*" };

/** Accumulated time and calls per label. */
type Timings = Map<string, { ms: number; calls: number }>;

/** How one import run writes. */
interface Variant {
  name: string;
  /** Documents per `storage.units.withTransaction`; 1 means no batch, one transaction per document. */
  batch: number;
  /** What-if: the per-document SAVEPOINT/RELEASE inside a batch become no-ops. */
  noSavepoints: boolean;
  profile: boolean;
}

function add(t: Timings, label: string, ms: number): void {
  const e = t.get(label) ?? { ms: 0, calls: 0 };
  e.ms += ms;
  e.calls++;
  t.set(label, e);
}

/** Wraps `db.prepare`/`db.exec` on this instance: timing, and the savepoint what-if. */
function instrument(db: DatabaseSync, v: Variant, t: Timings): void {
  const prepare = db.prepare.bind(db);
  const exec = db.exec.bind(db);
  const label = (sql: string) => sql.replace(/\s+/g, " ").trim().slice(0, 72);
  const timedPrepare = (sql: string): StatementSync => {
    const started = performance.now();
    const stmt = prepare(sql);
    if (!v.profile) return stmt;
    add(t, "(compile SQL: db.prepare)", performance.now() - started);
    for (const m of ["run", "get", "all"] as const) {
      const f = (stmt[m] as (...a: unknown[]) => unknown).bind(stmt);
      Object.defineProperty(stmt, m, {
        value: (...a: unknown[]) => {
          const s = performance.now();
          const out = f(...a);
          add(t, `${m} ${label(sql)}`, performance.now() - s);
          return out;
        },
      });
    }
    return stmt;
  };
  const timedExec = (sql: string): void => {
    if (v.noSavepoints && /^(SAVEPOINT|RELEASE) /.test(sql)) return;
    const started = performance.now();
    exec(sql);
    if (v.profile) add(t, `exec ${label(sql)}`, performance.now() - started);
  };
  Object.defineProperty(db, "prepare", { value: timedPrepare });
  Object.defineProperty(db, "exec", { value: timedExec });
}

async function importWith(notes: Note[], v: Variant): Promise<{ ms: number; t: Timings }> {
  const dir = await Deno.makeTempDir({ prefix: "engram-write-profile-" });
  const db = openDatabase(`${dir}/engram.db`);
  const t: Timings = new Map();
  instrument(db, v, t);
  const storage = new SqliteStorage(new SqliteConnection(db));
  try {
    await ensureDefaultBrain(storage.brains);
    const service = new MemoryService(storage);
    const write = async (from: number, to: number) => {
      for (const n of notes.slice(from, to)) {
        await service.remember(CALLER, { content: n.content, path: n.path, tags: n.tags });
      }
    };
    const started = performance.now();
    for (let i = 0; i < notes.length; i += v.batch) {
      if (v.batch === 1) await write(i, i + 1);
      else await storage.units.withTransaction(() => write(i, i + v.batch));
    }
    return { ms: performance.now() - started, t };
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The per-statement breakdown of a profiled run, biggest first. */
function breakdown(n: number, run: { ms: number; t: Timings }): string {
  const sqlMs = [...run.t.values()].reduce((s, e) => s + e.ms, 0);
  const rows = [...run.t].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12).map(([what, e]) => [
    (e.ms / n * 1000).toFixed(0),
    (e.calls / n).toFixed(2),
    (e.ms / e.calls * 1000).toFixed(1),
    `${(100 * e.ms / run.ms).toFixed(1)}%`,
    what,
  ]);
  rows.push([
    ((run.ms - sqlMs) / n * 1000).toFixed(0),
    "",
    "",
    `${(100 * (run.ms - sqlMs) / run.ms).toFixed(1)}%`,
    "(outside SQLite: chunking, links, hashing, JS)",
  ]);
  return table(["us/doc", "calls/doc", "us/call", "share", "what"], rows);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      docs: { type: "string", default: "3000" },
      seed: { type: "string", default: String(DEFAULT_SEED) },
    },
  });
  const n = Number(values.docs);
  const corpus = new Corpus(n, Number(values.seed));
  const notes = Array.from({ length: n }, (_, i) => corpus.note(i));

  const modes: Variant[] = [
    { name: "1 doc/txn (memory_remember)", batch: 1, noSavepoints: false, profile: true },
    {
      name: `storage.units.withTransaction, ${BATCH}/txn (engram ingest)`,
      batch: BATCH,
      noSavepoints: false,
      profile: true,
    },
  ];
  for (const v of modes) {
    const run = await importWith(notes, v);
    console.log(`\n${v.name}: ${(n / run.ms * 1000).toFixed(0)} docs/s (with timing wrappers)\n`);
    console.log(breakdown(n, run));
  }
  const variants: Variant[] = [
    ...modes.map((v) => ({ ...v, profile: false })),
    {
      name: `what-if: storage.units.withTransaction, ${BATCH}/txn, no per-document SAVEPOINT`,
      batch: BATCH,
      noSavepoints: true,
      profile: false,
    },
  ];
  const out: string[][] = [];
  for (const v of variants) {
    const { ms } = await importWith(notes, v);
    out.push([v.name, (n / ms * 1000).toFixed(0), (ms / n * 1000).toFixed(0)]);
  }
  console.log(`\n${n} notes, without timing wrappers:\n`);
  console.log(table(["variant", "docs/s", "us/doc"], out));
}

if (import.meta.main) await main();

/** @module The benchmark's result record and its tables: figures, targets, PASS/MISS. */
import type { Query, QueryKind } from "./corpus.ts";
import { IMPORT_BATCH, type ImportResult } from "./inprocess.ts";
import {
  FILES_PER_FOLDER,
  FRONT_MATTER_EVERY,
  type IngestResult,
  PROBE_EVERY_MS,
} from "./ingest_bench.ts";
import { markdownTable, median, ms, sizeLabel, summarize, type Summary, table } from "./stats.ts";

/** Bulk import target from the issue: 10k small notes in under 10 s. */
export const IMPORT_DOCS_PER_S = 1000;
/** Search target: stdio p50 within this many ms plus SEARCH_FACTOR × the raw FTS5 p50. */
export const SEARCH_SLACK_MS = 2;
/** Search target factor over the raw FTS5 p50 (in process, same run). */
export const SEARCH_FACTOR = 1.5;
/** Search target: stdio p99 at most this many times its p50. */
export const SEARCH_TAIL = 3;
/** Idle RSS target, MiB. */
export const RSS_TARGET_MB = 80;
/** Start to first initialize reply target, ms. */
export const START_TARGET_MS = 300;
/** Folder ingest target (issue 3): `engram ingest DIR` at this many files/s or more. */
export const FOLDER_FILES_PER_S = 1000;

/** Everything measured at one corpus size. */
export interface SizeResult {
  size: number;
  import: ImportResult;
  dbBytes: number;
  queries: Query[];
  /** Per-query latencies in ms, in query order, for each path. */
  latency: { sdk: number[]; raw: number[]; engram: number[]; fts: number[]; bare: number[] };
  /** Hits per query through stdio and in process (they must agree). */
  hits: { stdio: number[]; inProcess: number[] };
  idleRss: { rss: number; hwm: number; waitedMs: number };
  busyRss: { rss: number; hwm: number };
  startMs: number[];
  /** Per-call ms of the one-document-per-transaction remembers after the search phase. */
  rememberEach: number[];
}

/** Column headings of the main table. */
const HEADER = ["size", "metric", "value", "target", "result"];

/** Rows of the main table for one size. */
export function resultRows(r: SizeResult): string[][] {
  const n = sizeLabel(r.size);
  const docsPerS = r.size / (r.import.rememberMs / 1000);
  const s = (xs: number[]) => summarize(xs);
  const sdk = s(r.latency.sdk);
  const raw = s(r.latency.raw);
  const engram = s(r.latency.engram);
  const floor = s(r.latency.fts);
  const bare = s(r.latency.bare);
  const searchTarget = SEARCH_SLACK_MS + SEARCH_FACTOR * floor.p50;
  const startMedian = median(r.startMs);
  const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
  const pair = (x: Summary) => `${ms(x.p50)} / ${ms(x.p99)} ms`;
  const each = s(r.rememberEach);
  const eachPerS = r.rememberEach.length / (r.rememberEach.reduce((a, b) => a + b, 0) / 1000);
  return [
    [
      n,
      `bulk import: remember in one unit of work per ${IMPORT_BATCH} docs`,
      `${docsPerS.toFixed(0)} docs/s (${(r.import.rememberMs / 1000).toFixed(1)} s)`,
      `>= ${IMPORT_DOCS_PER_S} docs/s (10k in < 10 s)`,
      verdict(docsPerS >= IMPORT_DOCS_PER_S),
    ],
    [
      n,
      `remember 1 doc/txn, ${r.rememberEach.length} more (p50 / p99)`,
      `${eachPerS.toFixed(0)} docs/s (${ms(each.p50)} / ${ms(each.p99)} ms)`,
      "(info: the memory_remember path)",
      "",
    ],
    [
      n,
      "memory_search via stdio, SDK client p50 / p99",
      pair(sdk),
      `p50 <= ${SEARCH_SLACK_MS} + ${SEARCH_FACTOR} x floor = ${ms(searchTarget)} ms`,
      verdict(sdk.p50 <= searchTarget),
    ],
    [
      n,
      "memory_search via stdio, SDK client p99 / p50",
      `${(sdk.p99 / sdk.p50).toFixed(2)}x`,
      `p99 <= ${SEARCH_TAIL} x p50`,
      verdict(sdk.p99 <= SEARCH_TAIL * sdk.p50),
    ],
    [n, "memory_search via stdio, raw JSON-RPC p50 / p99", pair(raw), "(info)", ""],
    [n, "engram search in process (searchHits) p50 / p99", pair(engram), "(info)", ""],
    [
      n,
      "floor: raw FTS5 (words OR'd, bm25, snippet, LIMIT 10) p50 / p99",
      pair(floor),
      "(floor)",
      "",
    ],
    [n, "bare FTS5 MATCH ... LIMIT 10 (AND, else OR) p50 / p99", pair(bare), "(info)", ""],
    [
      n,
      "ratio stdio SDK / raw FTS5 | / in process (p50)",
      `${(sdk.p50 / floor.p50).toFixed(2)}x | ${(sdk.p50 / engram.p50).toFixed(2)}x`,
      `(${SEARCH_FACTOR}x + ${SEARCH_SLACK_MS} ms allowed)`,
      "",
    ],
    [
      n,
      "idle engram stdio RSS (VmRSS)",
      `${r.idleRss.rss.toFixed(1)} MiB (settled in ${(r.idleRss.waitedMs / 1000).toFixed(1)} s)`,
      `< ${RSS_TARGET_MB} MB`,
      verdict(r.idleRss.rss < RSS_TARGET_MB),
    ],
    [
      n,
      "RSS after the search run (VmRSS / VmHWM)",
      `${r.busyRss.rss.toFixed(1)} / ${r.busyRss.hwm.toFixed(1)} MiB`,
      "(info)",
      "",
    ],
    [
      n,
      `start -> initialize reply, median of ${r.startMs.length}`,
      `${ms(startMedian)} ms (min ${ms(Math.min(...r.startMs))})`,
      `< ${START_TARGET_MS} ms`,
      verdict(startMedian < START_TARGET_MS),
    ],
  ];
}

/** Rows of the main table for the ingestion section. */
export function ingestRows(r: IngestResult): string[][] {
  const n = `${sizeLabel(r.files)} files`;
  const mb = r.folderBytes / 1e6;
  const rate = (ms: number) => r.files / (ms / 1000);
  const firstRate = rate(r.first.wallMs);
  const baseRate = r.baseline.docs / (r.baseline.rememberMs / 1000);
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const big = r.big;
  const mib = `${(big.bytes / 2 ** 20).toFixed(0)} MiB`;
  return [
    [
      n,
      "engram ingest DIR, subprocess wall time (first run)",
      `${firstRate.toFixed(0)} files/s, ${(mb / (r.first.wallMs / 1000)).toFixed(2)} MB/s ` +
      `(${secs(r.first.wallMs)}; engram's duration_ms ${secs(r.first.reportedMs)})`,
      `>= ${FOLDER_FILES_PER_S} files/s`,
      firstRate >= FOLDER_FILES_PER_S ? "PASS" : "MISS",
    ],
    [
      n,
      `baseline: bulk remember of the same notes, one unit of work per ${IMPORT_BATCH}`,
      `${baseRate.toFixed(0)} docs/s (${secs(r.baseline.rememberMs)})`,
      "(baseline, in process)",
      "",
    ],
    [
      n,
      "ratio folder ingest / bulk remember (files/s)",
      `${(firstRate / baseRate).toFixed(2)}x (on engram's duration_ms: ${
        (rate(r.first.reportedMs) / baseRate).toFixed(2)
      }x)`,
      "(info)",
      "",
    ],
    [
      n,
      "engram ingest DIR again, all unchanged",
      `${rate(r.second.wallMs).toFixed(0)} files/s (${secs(r.second.wallMs)}; ` +
      `duration_ms ${secs(r.second.reportedMs)})`,
      "(info)",
      "",
    ],
    [
      mib,
      "engram ingest big.md (foreground, subprocess wall time)",
      `${secs(big.cli.wallMs)}, ${(big.bytes / 1e6 / (big.cli.wallMs / 1000)).toFixed(2)} MB/s, ` +
      `${big.cli.chunks} chunks`,
      "(info)",
      "",
    ],
    [
      mib,
      "memory_ingest_file over stdio: call -> status 'queued'",
      `${ms(big.queuedMs)} ms`,
      "(info)",
      "",
    ],
    [
      mib,
      "memory_ingest_file call -> memory_job completed",
      `${secs(big.completedMs)}, ${big.chunks} chunks (${big.jobPolls} memory_job call(s))`,
      "(info)",
      "",
    ],
    [
      mib,
      `memory_job status poll while the job runs (every ${PROBE_EVERY_MS} ms), p50 / max`,
      big.probeMs.length
        ? `${ms(summarize(big.probeMs).p50)} / ${ms(summarize(big.probeMs).max)} ms ` +
          `(${big.probeMs.length} polls)`
        : "n/a",
      "(info: is the server responsive?)",
      "",
    ],
    [
      mib,
      "stdio server RSS after the job (VmRSS / VmHWM)",
      `${big.serverRss.rss.toFixed(1)} / ${big.serverRss.hwm.toFixed(1)} MiB`,
      "(info)",
      "",
    ],
  ];
}

/** The main table (plain text or markdown) over all sizes, then the ingestion rows if run. */
export function mainTable(
  results: SizeResult[],
  ingest?: IngestResult,
  markdown = false,
): string {
  const rows = [...results.flatMap(resultRows), ...(ingest ? ingestRows(ingest) : [])];
  return markdown ? markdownTable(HEADER, rows) : table(HEADER, rows);
}

/** p50 latency by query kind for each path, with the mean number of hits. */
export function kindTable(results: SizeResult[], markdown = false): string {
  const header = [
    "size",
    "query kind",
    "n",
    "stdio SDK",
    "raw RPC",
    "in process",
    "raw FTS5",
    "bare",
    "hits",
  ];
  const rows: string[][] = [];
  for (const r of results) {
    const kinds = [...new Set(r.queries.map((q) => q.kind))] as QueryKind[];
    for (const kind of kinds) {
      const idx = r.queries.flatMap((q, i) => (q.kind === kind ? [i] : []));
      const p50 = (xs: number[]) => ms(summarize(idx.map((i) => xs[i])).p50);
      const hits = idx.reduce((sum, i) => sum + r.hits.inProcess[i], 0) / idx.length;
      rows.push([
        sizeLabel(r.size),
        kind,
        String(idx.length),
        p50(r.latency.sdk),
        p50(r.latency.raw),
        p50(r.latency.engram),
        p50(r.latency.fts),
        p50(r.latency.bare),
        hits.toFixed(1),
      ]);
    }
  }
  return markdown ? markdownTable(header, rows) : table(header, rows);
}

/** Details of the ingestion section: folder size, chunks, the baseline's rate by tenth. */
export function ingestLines(r: IngestResult): string[] {
  return [
    `ingest: folder of ${r.files} files, ${(r.folderBytes / 1e6).toFixed(1)} MB of markdown ` +
    `(${FILES_PER_FOLDER} per folder, 1 in ${FRONT_MATTER_EVERY} with front matter), written in ${
      (r.generateMs / 1000).toFixed(1)
    } s (not timed); ` +
    `${r.first.chunks} chunks from engram ingest, ${r.baseline.chunks} from the baseline; ` +
    `baseline docs/s by tenth: ${r.baseline.tenths.map((t) => t.toFixed(0)).join(", ")}`,
  ];
}

/** One line per size on the import: generation time, chunks, database size, rate by tenth. */
export function importLines(results: SizeResult[]): string[] {
  return results.map((r) =>
    `${sizeLabel(r.size)}: ${r.import.chunks} chunks, database ${
      (r.dbBytes / 2 ** 20).toFixed(0)
    } MiB, note generation ${(r.import.generateMs / 1000).toFixed(1)} s (not timed); ` +
    `docs/s by tenth of the import: ${r.import.tenths.map((t) => t.toFixed(0)).join(", ")}`
  );
}

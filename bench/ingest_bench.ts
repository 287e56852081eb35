/**
 * @module Ingestion figures: `engram ingest DIR` on a generated markdown folder (first run and an
 * unchanged re-run) against the in-process bulk import of the same notes, and one 20 MiB markdown
 * file through `engram ingest` and through memory_ingest_file's queue on a real `engram stdio`.
 */
import { engramRunArgs } from "../src/config/permissions.ts";
import { type CallToolResult } from "../src/mcp/sdk.ts";
import { Client, StdioClientTransport } from "../src/mcp/sdk_client.ts";
import type { Corpus } from "./corpus.ts";
import { bulkRemember, type ImportResult } from "./inprocess.ts";
import { readRss, serverEnv } from "./stdio_client.ts";

/** main.ts of this checkout. */
const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** Notes per generated folder: `vault/part-NN/batch-NNN/` holds this many files. */
export const FILES_PER_FOLDER = 100;
/** Size of the big markdown file: over the 2 MiB queue threshold, under the 25 MiB cap. */
export const BIG_FILE_BYTES = 20 * 2 ** 20;
/** Every FRONT_MATTER_EVERY-th note gets a YAML front matter block (title, tags, a status). */
export const FRONT_MATTER_EVERY = 2;
/** Interval between the status polls made while the job runs, ms. */
export const PROBE_EVERY_MS = 250;
/** Upper bound on waiting for the queued job, ms. */
const JOB_DEADLINE_MS = 15 * 60_000;

/** One `engram ingest` subprocess run. */
export interface CliRun {
  /** Spawn to exit, ms: what a user waits. */
  wallMs: number;
  /** engram's own `duration_ms` (after its module graph loaded and the config was read). */
  reportedMs: number;
  ingested: number;
  unchanged: number;
  failed: number;
  /** Sum of `chunk_count` over the documents. */
  chunks: number;
}

/** The 20 MiB file through the CLI and through the MCP queue. */
export interface BigFileResult {
  bytes: number;
  cli: CliRun;
  /** memory_ingest_file call to its `status: 'queued'` reply, ms. */
  queuedMs: number;
  /** memory_ingest_file call to memory_job reporting `completed`, ms. */
  completedMs: number;
  /** memory_job calls made (each with wait_ms 60000). */
  jobPolls: number;
  /** Latencies of status polls (memory_job, wait_ms 0) made every PROBE_EVERY_MS meanwhile, ms. */
  probeMs: number[];
  chunks: number;
  /** The stdio server's VmRSS / VmHWM (MiB) once the job completed. */
  serverRss: { rss: number; hwm: number };
}

/** Everything the ingestion section measures. */
export interface IngestResult {
  files: number;
  /** Bytes of markdown in the folder. */
  folderBytes: number;
  /** Writing the folder, ms (not timed against anything). */
  generateMs: number;
  /** In-process unit-of-work import of the same notes, the bulk-remember baseline. */
  baseline: ImportResult;
  first: CliRun;
  second: CliRun;
  big: BigFileResult;
}

/** Runs the whole ingestion section in a fresh temp directory. */
export async function runIngest(
  corpus: Corpus,
  files: number,
  o: { keep: boolean; log: (message: string) => void },
): Promise<IngestResult> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "engram-bench-ingest-" }));
  try {
    o.log(`ingest: writing ${files} markdown files under ${root}/vault`);
    let t = performance.now();
    const folderBytes = await writeFolder(`${root}/vault`, corpus, files);
    const generateMs = performance.now() - t;
    o.log(`ingest: ${(folderBytes / 1e6).toFixed(1)} MB; bulk-remember baseline, same notes`);
    const baseline = await bulkRemember(`${root}/baseline.db`, corpus, files);
    o.log(`ingest: engram ingest vault (first run)`);
    const args = ["ingest", `${root}/vault`, "--data", `${root}/data`, "--json"];
    const first = await engramCli(args, `${root}/data`);
    if (first.ingested !== files) throw new Error(`first run ingested ${first.ingested}/${files}`);
    o.log(`ingest: engram ingest vault (second run, unchanged)`);
    const second = await engramCli(args, `${root}/data`);
    if (second.unchanged !== files) {
      throw new Error(`second run: ${second.unchanged}/${files} unchanged`);
    }
    o.log(`ingest: writing a ${BIG_FILE_BYTES / 2 ** 20} MiB markdown file`);
    t = performance.now();
    const big = `${root}/big/big.md`;
    await Deno.mkdir(`${root}/big`);
    const bytes = await writeBigFile(big, corpus, BIG_FILE_BYTES);
    o.log(`ingest: big file written in ${((performance.now() - t) / 1000).toFixed(1)} s; CLI`);
    const cli = await engramCli(
      ["ingest", big, "--data", `${root}/data-cli`, "--json"],
      `${root}/data-cli`,
    );
    o.log(`ingest: big file through memory_ingest_file on engram stdio --tier write`);
    const mcp = await bigThroughMcp(root, big);
    return {
      files,
      folderBytes,
      generateMs,
      baseline,
      first,
      second,
      big: { bytes, cli, ...mcp },
    };
  } finally {
    if (o.keep) o.log(`ingest: kept ${root}`);
    else await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/** Notes 0..n-1 as markdown files, FILES_PER_FOLDER per folder; returns the bytes written. */
export async function writeFolder(dir: string, corpus: Corpus, n: number): Promise<number> {
  const encoder = new TextEncoder();
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const k = Math.floor(i / FILES_PER_FOLDER);
    const folder = `${dir}/part-${pad(Math.floor(k / 10), 2)}/batch-${pad(k, 3)}`;
    if (i % FILES_PER_FOLDER === 0) await Deno.mkdir(folder, { recursive: true });
    const note = corpus.note(i);
    const name = note.path.split("/").pop()!;
    const data = encoder.encode(markdownFile(note.content, note.tags, corpus.title(i), i));
    await Deno.writeFile(`${folder}/${name}`, data);
    bytes += data.length;
  }
  return bytes;
}

/** A note as a file: every FRONT_MATTER_EVERY-th one with front matter (title, tags, status). */
function markdownFile(content: string, tags: string[], title: string, i: number): string {
  if (i % FRONT_MATTER_EVERY !== 0) return content;
  const status = i % 3 === 0 ? "draft" : "done";
  return `---\ntitle: ${JSON.stringify(title)}\ntags: [${tags.join(", ")}]\nstatus: ${status}\n` +
    `---\n\n${content}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/**
 * One markdown file of exactly `size` bytes: a title, then the corpus notes in order with their
 * `# Title` demoted to `## Title`, cut at a line end and padded with a final line.
 */
export async function writeBigFile(path: string, corpus: Corpus, size: number): Promise<number> {
  const parts: string[] = ["# Bench: one big markdown file\n\n"];
  let length = parts[0].length;
  for (let i = 0; length < size; i++) {
    const note = corpus.note(i % corpus.size).content.replace(/^# /, "## ") + "\n";
    parts.push(note);
    length += note.length; // the corpus is ASCII: one byte per character
  }
  let text = parts.join("");
  text = text.slice(0, text.lastIndexOf("\n", size - 2) + 1);
  text += "x".repeat(size - 1 - text.length) + "\n";
  await Deno.writeTextFile(path, text);
  return (await Deno.stat(path)).size;
}

/** Runs `engram ARGS` as a real subprocess (deno run with the binary's ceiling) and times it. */
export async function engramCli(args: string[], cwd: string): Promise<CliRun> {
  await Deno.mkdir(cwd, { recursive: true });
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: engramRunArgs(MAIN, args),
    cwd,
    env: serverEnv(cwd),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wallMs = performance.now() - started;
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    const stderr = new TextDecoder().decode(out.stderr);
    throw new Error(`engram ${args.join(" ")} exited ${out.code}: ${stderr}${text.slice(0, 2000)}`);
  }
  const summary = JSON.parse(text) as {
    ingested: number;
    unchanged: number;
    failed: unknown[];
    duration_ms: number;
    documents: { chunk_count: number }[];
  };
  return {
    wallMs,
    reportedMs: summary.duration_ms,
    ingested: summary.ingested,
    unchanged: summary.unchanged,
    failed: summary.failed.length,
    chunks: summary.documents.reduce((sum, d) => sum + d.chunk_count, 0),
  };
}

/**
 * `engram stdio --tier write --config CFG` with `mcp.allowed_file_roots: [the file's folder]` and
 * the default 2 MiB queue threshold: memory_ingest_file, then memory_job (wait_ms 60000) until the
 * job finishes.
 */
async function bigThroughMcp(
  root: string,
  file: string,
): Promise<Omit<BigFileResult, "bytes" | "cli">> {
  const data = `${root}/data-mcp`;
  await Deno.mkdir(data);
  const config = `${root}/engram.yaml`;
  const folder = file.slice(0, file.lastIndexOf("/"));
  await Deno.writeTextFile(config, `mcp:\n  allowed_file_roots: [${JSON.stringify(folder)}]\n`);
  const tail = ["stdio", "--tier", "write", "--config", config, "--data", data];
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: engramRunArgs(MAIN, tail),
    env: serverEnv(data),
    cwd: data,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
  const client = new Client({ name: "engram-bench", version: "1.0.0" });
  await client.connect(transport);
  try {
    await client.listTools();
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args }, undefined, {
        timeout: 120_000,
      }) as CallToolResult;
      if (r.isError) {
        throw new Error(`${name} failed: ${JSON.stringify(r.content)}\nserver stderr: ${stderr}`);
      }
      return r.structuredContent as Record<string, unknown>;
    };
    const started = performance.now();
    const queued = await call("memory_ingest_file", { path: file });
    const queuedMs = performance.now() - started;
    if (queued.status !== "queued") {
      throw new Error(`expected status 'queued', got ${JSON.stringify(queued)}`);
    }
    let finished = false;
    const waiting = (async () => {
      let job: Record<string, unknown>;
      let polls = 0;
      do {
        if (performance.now() - started > JOB_DEADLINE_MS) throw new Error("job did not finish");
        job = await call("memory_job", { job_id: queued.job_id, wait_ms: 60_000 });
        polls++;
      } while (job.status === "queued" || job.status === "running");
      return { job, polls, ms: performance.now() - started };
    })().finally(() => (finished = true));
    // Meanwhile: is the server still answering? A status poll (wait_ms 0) every PROBE_EVERY_MS.
    const probeMs: number[] = [];
    while (!finished) {
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
      if (finished) break;
      const t = performance.now();
      await call("memory_job", { job_id: queued.job_id, wait_ms: 0 });
      probeMs.push(performance.now() - t);
    }
    const { job, polls: jobPolls, ms: completedMs } = await waiting;
    if (job.status !== "completed") {
      throw new Error(`job ${job.status}: ${job.error}\nserver stderr: ${stderr}`);
    }
    const result = job.result as { chunk_count: number };
    return {
      queuedMs,
      completedMs,
      jobPolls,
      probeMs,
      chunks: result.chunk_count,
      serverRss: readRss(transport.pid!),
    };
  } finally {
    await client.close();
  }
}

/** @module The real `engram stdio`: SDK and raw JSON-RPC sessions, start-up timing, RSS. */
import { engramRunArgs } from "../src/config/permissions.ts";
import { engramEnv } from "../tests/helpers.ts";
import { type CallToolResult, LATEST_PROTOCOL_VERSION } from "../src/mcp/sdk.ts";
import { Client, StdioClientTransport } from "../src/mcp/sdk_client.ts";

/** main.ts of this checkout. */
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** How to start the server: `deno run <ceiling flags> main.ts`, or a compiled binary. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/**
 * The command line for `engram stdio --data DIR`; `bin` selects a compiled engram binary, `extra`
 * adds arguments (`--tier admin`, `--config FILE`).
 */
export function stdioCommand(dataDir: string, bin?: string, extra: string[] = []): ServerCommand {
  const tail = ["stdio", "--data", dataDir, ...extra];
  if (bin) return { command: bin, args: tail };
  return { command: Deno.execPath(), args: engramRunArgs(MAIN, tail) };
}

/** The environment a spawned server gets (the tests' minimal one: Deno's cache reachable, engram's paths in `dataDir`). */
export const serverEnv: (dataDir: string) => Record<string, string> = engramEnv;

/** An MCP SDK client on a spawned server, with the server's pid. */
export interface SdkSession {
  client: Client;
  pid: number;
  /** The server's stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `engram stdio` (with `extra` arguments) and connects the SDK client: initialize, then tools/list. */
export async function connectSdk(
  dataDir: string,
  bin?: string,
  extra: string[] = [],
): Promise<SdkSession> {
  const { command, args } = stdioCommand(dataDir, bin, extra);
  const transport = new StdioClientTransport({
    command,
    args,
    env: serverEnv(dataDir),
    cwd: dataDir,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
  const client = new Client({ name: "engram-bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid!, stderr: () => stderr, close: () => client.close() };
}

/** Calls memory_search through the SDK client; throws on a tool error. */
export async function sdkSearch(
  client: Client,
  query: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const r = await client.callTool({
    name: "memory_search",
    arguments: { query, ...extra },
  }) as CallToolResult;
  if (r.isError) throw new Error(`memory_search "${query}" failed: ${JSON.stringify(r.content)}`);
  return (r.structuredContent as { hits: unknown[] }).hits.length;
}

/** A bare newline-delimited JSON-RPC session: no SDK parsing or validation on the client side. */
export class RawSession {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (msg: Record<string, unknown>) => void>();
  readonly #encoder = new TextEncoder();
  readonly #done: Promise<void>;
  #nextId = 1;

  /** Spawns `engram stdio --data dataDir` (or `bin`, with `extra` arguments) and starts reading its replies. */
  constructor(dataDir: string, bin?: string, extra: string[] = []) {
    const { command, args } = stdioCommand(dataDir, bin, extra);
    this.#child = new Deno.Command(command, {
      args,
      cwd: dataDir,
      env: serverEnv(dataDir),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = this.#readLoop();
  }

  /** The server's pid. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Sends a request and resolves with the whole response message. */
  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const reply = new Promise<Record<string, unknown>>((resolve) => this.#pending.set(id, resolve));
    this.#send({ jsonrpc: "2.0", id, method, params });
    return reply;
  }

  /** initialize + notifications/initialized. */
  async initialize(): Promise<Record<string, unknown>> {
    const reply = await this.request("initialize", {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "engram-bench", version: "1.0.0" },
    });
    this.#send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return reply;
  }

  /** Closes stdin and waits for the server to exit. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
    await this.#done;
  }

  #send(msg: Record<string, unknown>): void {
    this.#writer.write(this.#encoder.encode(JSON.stringify(msg) + "\n")).catch(() => {});
  }

  async #readLoop(): Promise<void> {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of this.#child.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line) as Record<string, unknown>;
        const resolve = this.#pending.get(msg.id as number);
        this.#pending.delete(msg.id as number);
        resolve?.(msg);
      }
    }
  }
}

/** Calls memory_search over a raw session; returns the hit count. */
export async function rawSearch(
  session: RawSession,
  query: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const msg = await session.request("tools/call", {
    name: "memory_search",
    arguments: { query, ...extra },
  });
  const result = msg.result as CallToolResult | undefined;
  if (!result || result.isError) {
    throw new Error(`memory_search "${query}": ${JSON.stringify(msg)}`);
  }
  return (result.structuredContent as { hits: unknown[] }).hits.length;
}

/** Milliseconds from spawning `engram stdio` to receiving its initialize reply. */
export async function timeToInitialize(dataDir: string, bin?: string): Promise<number> {
  const started = performance.now();
  const session = new RawSession(dataDir, bin);
  const reply = await session.initialize();
  const elapsed = performance.now() - started;
  await session.close();
  if (!reply.result) throw new Error(`initialize failed: ${JSON.stringify(reply)}`);
  return elapsed;
}

/** VmRSS and VmHWM (peak) of a process, in MiB, from /proc/<pid>/status. */
export function readRss(pid: number): { rss: number; hwm: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1]);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/**
 * RSS once the idle process has settled: sampled every 100 ms until it changed by less than 1%
 * over the last second, or `maxMs` passed. Returns the last sample and the wait.
 */
export async function settledRss(
  pid: number,
  maxMs = 5000,
): Promise<{ rss: number; hwm: number; waitedMs: number }> {
  const started = performance.now();
  const samples: number[] = [];
  let last = readRss(pid);
  while (performance.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 100));
    last = readRss(pid);
    samples.push(last.rss);
    const window = samples.slice(-11);
    if (window.length === 11 && Math.max(...window) - Math.min(...window) < 0.01 * last.rss) break;
  }
  return { ...last, waitedMs: performance.now() - started };
}

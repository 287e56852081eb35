/** @module Shared test helpers: temp data dirs, spawning the real CLI, an SDK client over stdio. */
import { type CallToolResult, type ClientCapabilities, type Transport } from "../src/mcp/sdk.ts";
import { Client, StdioClientTransport } from "../src/mcp/sdk_client.ts";
import { engramRunArgs } from "../src/config/permissions.ts";
import { MemoryService } from "../src/core/memory_service.ts";
import { ensureDefaultBrain } from "../src/core/brains.ts";
import type { CallerContext } from "../src/core/types.ts";
import { openSqliteStorage, type SqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import { TOOL_ERROR_META, type ToolErrorMeta } from "../src/mcp/server/tool_error.ts";

/** Waiting on SDK client events and reading tool results (apart, so fixture tests skip engram). */
export { collectNotifications, resultText, withTimeout } from "./sdk_waits.ts";

/** Absolute path of main.ts. */
export const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** Repository root. */
export const ROOT = new URL("..", import.meta.url).pathname;

/** A temp directory removed on dispose. */
export async function tempDir(
  prefix = "engram-test-",
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}

/** The environment a spawned engram gets: minimal, with its data dir, never the developer's config. */
export function engramEnv(
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  // HOME and DENO_DIR stay real so Deno finds its module cache; engram's own paths are pinned below.
  const denoDir = Deno.env.get("DENO_DIR");
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? dataDir,
    ...(denoDir ? { DENO_DIR: denoDir } : {}),
    XDG_CONFIG_HOME: `${dataDir}/xdg-config`,
    XDG_DATA_HOME: `${dataDir}/xdg-data`,
    ENGRAM_DATA_DIR: dataDir,
    NO_COLOR: "1",
    ...extra,
  };
}

/** `deno run` arguments for main.ts with the same permission ceiling as the compiled binary. */
export function engramCommandArgs(args: string[]): string[] {
  return engramRunArgs(MAIN, args);
}

/** Result of running the CLI. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `engram ARGS` as a subprocess (cwd: the data dir, so no repo config is picked up). */
export async function runEngram(
  args: string[],
  options: {
    dataDir: string;
    stdin?: string | Uint8Array;
    env?: Record<string, string>;
    cwd?: string;
  },
): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(args),
    cwd: options.cwd ?? options.dataDir,
    env: engramEnv(options.dataDir, options.env),
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    const { stdin } = options;
    await w.write(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin);
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** An SDK client connected to a spawned `engram stdio`; stderr is collected. */
export async function connectStdio(
  dataDir: string,
  options: {
    args?: string[];
    env?: Record<string, string>;
    /** Client capabilities to advertise (e.g. `{ sampling: {} }`). */
    capabilities?: ClientCapabilities;
    /** Registers handlers (e.g. for sampling) before the client connects. */
    setup?: (client: Client) => void;
  } = {},
): Promise<{ client: Client; stderr: () => string } & AsyncDisposable> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: engramCommandArgs(["stdio", ...(options.args ?? [])]),
    env: engramEnv(dataDir, options.env),
    cwd: dataDir,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
  const client = new Client(
    { name: "engram-test", version: "1.0.0" },
    { capabilities: options.capabilities ?? {} },
  );
  options.setup?.(client);
  await connectLikeAClient(client, transport);
  return { client, stderr: () => stderr, [Symbol.asyncDispose]: () => client.close() };
}

/**
 * Connects the way real clients do: `tools/list` right after initialize. The SDK client then checks
 * every tool result against the listed `outputSchema` (error results included) and throws on a
 * mismatch, so a test that skipped the listing would hide exactly what users hit.
 */
export async function connectLikeAClient(client: Client, transport: Transport): Promise<void> {
  await client.connect(transport);
  await client.listTools();
}

/** Calls a tool and returns the raw result. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

/** The structured payload of a successful call; throws with the error text otherwise. */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent as T;
}

/**
 * The `{ code, message, retryable }` of a failed call, read the way docs/tools.md#errors defines it: text
 * `CODE: message`, the code in `_meta["engram/error"]`, and no `structuredContent`. Throws if the
 * call succeeded or the error result has another shape.
 */
export async function callErr(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; message: string; retryable: boolean; text: string }> {
  return toolError(name, await call(client, name, args));
}

/** The error of a failed tool result (see callErr); throws on success or a malformed error. */
export function toolError(
  name: string,
  r: CallToolResult,
): { code: string; message: string; retryable: boolean; text: string } {
  if (!r.isError) {
    throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(r.structuredContent)}`);
  }
  if (r.structuredContent !== undefined) {
    throw new Error(`${name}: an error result must not carry structuredContent`);
  }
  const meta = r._meta?.[TOOL_ERROR_META] as ToolErrorMeta | undefined;
  if (typeof meta?.code !== "string" || typeof meta.retryable !== "boolean") {
    throw new Error(`${name}: error result without _meta["${TOOL_ERROR_META}"]`);
  }
  const text = (r.content[0] as { text: string }).text;
  if (!text.startsWith(`${meta.code}: `)) {
    throw new Error(`${name}: error text ${JSON.stringify(text)} does not start with the code`);
  }
  return {
    code: meta.code,
    message: text.slice(meta.code.length + 2),
    retryable: meta.retryable,
    text,
  };
}

/** An admin caller for in-process tests. */
export const ADMIN: CallerContext = {
  clientId: "test",
  transport: "cli",
  tier: "admin",
  brains: "*",
};

/** The storage ports an in-process MCP session takes besides the service (as runtime.ts wires them). */
export function sessionPorts(storage: SqliteStorage) {
  return {
    sessions: storage.sessions,
    jobQueue: storage.jobs,
    locks: storage.locks,
    audit: storage.audit,
  };
}

/** An in-process service on a fresh database file; `now` is the clock documents are stamped with. */
export async function openService(
  dir: string,
  options: { defaultBrain?: string; now?: () => Date } = {},
): Promise<{ service: MemoryService; storage: SqliteStorage } & Disposable> {
  const storage = openSqliteStorage(`${dir}/engram.db`);
  await ensureDefaultBrain(storage.brains);
  return {
    service: new MemoryService(storage, options),
    storage,
    [Symbol.dispose]: () => storage.close(),
  };
}

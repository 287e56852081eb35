/** @module Helpers for the HTTP tests: an in-process app on 127.0.0.1:0 with test tokens, raw MCP requests. */
import { ConfigSchema } from "../../src/config/schema.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createHttpApp, type HttpApp, type HttpAppOptions } from "../../src/http/app.ts";
import type { TokenGrant } from "../../src/http/auth.ts";
import type { HttpSettings } from "../../src/http/context.ts";
import { serveHttp } from "../../src/http/serve_http.ts";
import { Client, StreamableHTTPClientTransport } from "../../src/mcp/sdk_client.ts";
import { ProviderSet } from "../../src/providers/stack.ts";
import {
  connectLikeAClient,
  engramCommandArgs,
  engramEnv,
  openService,
  runEngram,
  sessionPorts,
  tempDir,
} from "../helpers.ts";

/** Test tokens: one per tier for client "alice", one write token for client "bob". */
export const TOKENS: Record<string, TokenGrant> = {
  "tok-read": { tokenId: "t1", clientId: "alice", tier: "read", brains: "*" },
  "tok-write": { tokenId: "t2", clientId: "alice", tier: "write", brains: "*" },
  "tok-admin": { tokenId: "t3", clientId: "alice", tier: "admin", brains: "*" },
  "tok-bob": { tokenId: "t4", clientId: "bob", tier: "write", brains: "*" },
};

/** A running in-process server. */
export interface TestServer extends AsyncDisposable {
  url: string;
  mcp: string;
  app: HttpApp;
  /** Stops the server (as SIGTERM would), bounded by `graceMs`. */
  shutdown(graceMs: number): Promise<void>;
}

/** Starts the app on 127.0.0.1 port 0 with the test tokens and `settings` over the defaults. */
export async function startServer(
  options: {
    settings?: Partial<HttpSettings>;
    app?: Partial<HttpAppOptions>;
    /** Session settings over the test defaults (e.g. `ingest`). */
    mcp?: Partial<HttpAppOptions["mcp"]>;
  } = {},
): Promise<TestServer> {
  const dir = await tempDir("engram-http-");
  const svc = await openService(dir.path);
  const settings = { ...ConfigSchema.parse({}).server, ...options.settings };
  const app = createHttpApp({
    settings,
    mcp: {
      service: svc.service,
      ...sessionPorts(svc.storage),
      logger: silentLogger,
      version: "test",
      providers: new ProviderSet([], { logger: silentLogger }),
      consolidate: { promoteAfterSessions: 2, pruneAfterDays: 90 },
      ...options.mcp,
    },
    verifyToken: (t) => Promise.resolve(TOKENS[t] ?? null),
    ready: () => svc.storage.health.ready(),
    ...options.app,
  });
  const server = serveHttp(app, { hostname: "127.0.0.1", port: 0, logger: silentLogger });
  return {
    url: server.url,
    mcp: `${server.url}/mcp`,
    app,
    shutdown: (graceMs) => server.shutdown(graceMs),
    [Symbol.asyncDispose]: async () => {
      await server.shutdown(1_000);
      svc[Symbol.dispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Headers of a well-formed POST to /mcp. */
export function mcpHeaders(token: string | null, extra: Record<string, string> = {}): Headers {
  const h = new Headers({
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...extra,
  });
  if (token) h.set("Authorization", `Bearer ${token}`);
  return h;
}

/** An initialize request body. */
export function initializeBody(version = "2025-11-25", id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "raw-test", version: "1" },
    },
  });
}

/** Opens a session with raw fetch; returns its id (the initialize reply body is consumed). */
export async function openSession(mcp: string, token: string): Promise<string> {
  const res = await fetch(mcp, {
    method: "POST",
    headers: mcpHeaders(token),
    body: initializeBody(),
  });
  if (res.status !== 200) throw new Error(`initialize: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
  const id = res.headers.get("mcp-session-id");
  if (!id) throw new Error("no session id");
  await fetch(mcp, {
    method: "POST",
    headers: sessionHeaders(token, id),
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.body?.cancel());
  return id;
}

/** Headers for a request inside a session. */
export function sessionHeaders(token: string, sessionId: string): Headers {
  return mcpHeaders(token, { "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-11-25" });
}

/** An SDK client connected over Streamable HTTP with `token`; `setup` runs before it connects. */
export async function connectHttp(
  mcp: string,
  token: string,
  options: { setup?: (client: Client) => void } = {},
): Promise<Client & AsyncDisposable> {
  const transport = new StreamableHTTPClientTransport(new URL(mcp), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "engram-http-test", version: "1.0.0" });
  options.setup?.(client);
  await connectLikeAClient(client, transport);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  });
}

/** Reads SSE events from a response body until `count` events with data arrived. */
export function sseReader(body: ReadableStream<Uint8Array>): {
  next(): Promise<{ id?: string; event?: string; data: string; retry?: string }>;
  cancel(): Promise<void>;
} {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const ev: { id?: string; event?: string; data: string; retry?: string } = { data: "" };
          let any = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const colon = line.indexOf(":");
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
            any = true;
            if (field === "data") ev.data += value;
            else if (field === "id") ev.id = value;
            else if (field === "event") ev.event = value;
            else if (field === "retry") ev.retry = value;
          }
          if (any) return ev;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("stream ended");
        buffer += value;
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/**
 * Takes the session-ready log notice off a session's first GET stream (after its priming event):
 * sent right after notifications/initialized, it waits for the first GET stream.
 */
export async function takeReadyNotice(
  stream: ReturnType<typeof sseReader>,
): Promise<{ id?: string; data: string }> {
  const event = await stream.next();
  const message = JSON.parse(event.data);
  if (
    message.method !== "notifications/message" || message.params.data.message !== "session ready"
  ) {
    throw new Error(`expected the session-ready notice, got ${event.data}`);
  }
  return event;
}

/** Creates a bearer token with the real CLI (`engram tokens create`) and returns its secret. */
export async function createToken(
  dataDir: string,
  grant: { client: string; tier: "read" | "write" | "admin" },
): Promise<string> {
  const created = await runEngram(
    ["tokens", "create", "--client", grant.client, "--tier", grant.tier],
    { dataDir },
  );
  if (created.code !== 0) throw new Error(`engram tokens create failed: ${created.stderr}`);
  return created.stdout.trim().split("\n")[0];
}

/**
 * Spawns `engram serve ARGS` and resolves once it logged its URL; the rest of stderr keeps
 * draining so the child never blocks on a full pipe.
 */
export async function spawnServe(
  dataDir: string,
  args: string[],
  options: { env?: Record<string, string> } = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(["serve", "--port", "0", ...args]),
    cwd: dataDir,
    env: engramEnv(dataDir, options.env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  let url: string | undefined;
  while (!url) {
    const { done, value } = await lines.read();
    if (done) throw new Error(`engram serve exited before listening:\n${stderr}`);
    stderr += value;
    url = stderr.match(/serving MCP at (http:\/\/\S+)\/mcp/)?.[1];
  }
  const rest = (async () => {
    for (;;) {
      const { done, value } = await lines.read();
      if (done) return stderr;
      stderr += value;
    }
  })();
  return { child, url, stderr: () => rest };
}

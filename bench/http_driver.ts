/**
 * @module Load on `engram serve`: MCP sessions over raw fetch, and tools/call memory_search driven
 * by autocannon, one autocannon instance per session (one connection, one request in flight).
 *
 * One instance per session because autocannon's per-request `context` is reset every time a
 * connection loops over its request list, so a single multi-connection instance cannot keep a
 * per-connection Mcp-Session-Id; a closure per instance can.
 */
import autocannon from "autocannon";

/** The revision `engram serve` speaks. */
export const PROTOCOL_VERSION = "2025-11-25";

/** An initialized MCP session on the server. */
export interface McpSession {
  id: string;
  /** Headers every in-session request carries. */
  headers: Record<string, string>;
}

/** What one load level measured. */
export interface LoadResult {
  sessions: number;
  /** Wall time of the level, ms. */
  wallMs: number;
  /** Latency of every answered request, ms (autocannon's own high-resolution timing). */
  latency: number[];
  /** Answers that were 200 with a JSON-RPC result for the request's id and no tool error. */
  ok: number;
  /** Non-200 answers, by status. */
  statuses: Record<string, number>;
  /** 200 answers carrying a JSON-RPC error, a tool error, the wrong id or an unparsable stream. */
  rpcErrors: number;
  /** Connection errors and timeouts reported by autocannon. */
  connErrors: number;
  /** The first few error descriptions, for the report. */
  samples: string[];
}

/** The subset of an autocannon instance this driver uses. */
interface Instance extends PromiseLike<{ errors: number; timeouts: number }> {
  on(
    event: "response",
    fn: (client: unknown, status: number, bytes: number, ms: number) => void,
  ): void;
  on(event: "reqError", fn: (err: Error) => void): void;
}

/** autocannon's entry point, typed for the options used here. */
const run = autocannon as unknown as (opts: Record<string, unknown>) => Instance;

/** Headers of a POST to /mcp with `token`. */
function postHeaders(token: string, accept: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept,
    authorization: `Bearer ${token}`,
  };
}

/** Accept as the SDK client sends it: both equal, so a plain call is answered as JSON. */
export const ACCEPT_TIE = "application/json, text/event-stream";
/** Accept preferring SSE: every call is answered on its own stream. */
export const ACCEPT_SSE = "application/json;q=0.9, text/event-stream";

/** initialize + notifications/initialized; throws unless both are accepted. */
export async function openSession(
  mcp: string,
  token: string,
  accept = ACCEPT_TIE,
): Promise<McpSession> {
  const res = await fetch(mcp, {
    method: "POST",
    headers: postHeaders(token, accept),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "engram-http-load", version: "1" },
      },
    }),
  });
  const text = await res.text();
  const id = res.headers.get("mcp-session-id");
  const reply = replyMessage(text);
  if (res.status !== 200 || !id || !reply?.result) {
    throw new Error(`initialize: ${res.status} ${text.slice(0, 300)}`);
  }
  const headers = {
    ...postHeaders(token, accept),
    "mcp-session-id": id,
    "mcp-protocol-version": PROTOCOL_VERSION,
  };
  const note = await fetch(mcp, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await note.body?.cancel();
  if (note.status !== 202) throw new Error(`notifications/initialized: ${note.status}`);
  return { id, headers };
}

/** Ends a session (DELETE), so the next level starts from an empty session table. */
export async function closeSession(mcp: string, session: McpSession): Promise<void> {
  const res = await fetch(mcp, { method: "DELETE", headers: session.headers });
  await res.body?.cancel();
}

/** The JSON-RPC reply in a POST's body: plain JSON, or the first message of an SSE stream. */
export function replyMessage(body: string): Record<string, unknown> | null {
  if (body.trimStart().startsWith("{")) {
    try {
      return JSON.parse(body) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  return sseMessage(body);
}

/** The JSON-RPC message of a POST's SSE stream (the priming event carries no data), or null. */
export function sseMessage(body: string): Record<string, unknown> | null {
  for (const block of body.split(/\r?\n\r?\n/)) {
    const data = block.split(/\r?\n/).filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, "")).join("\n");
    if (data.trim() === "") continue;
    try {
      return JSON.parse(data) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  return null;
}

/** Why a memory_search answer is not a success, or null when it is one. */
function answerError(body: string, id: number): string | null {
  const msg = replyMessage(body);
  if (!msg) return `unparsable reply: ${body.slice(0, 120)}`;
  if (msg.id !== id) return `id ${JSON.stringify(msg.id)} for request ${id}`;
  if (msg.error) return `JSON-RPC error ${JSON.stringify(msg.error).slice(0, 160)}`;
  const result = msg.result as { isError?: boolean; structuredContent?: { hits?: unknown[] } };
  if (result?.isError) return `tool error ${JSON.stringify(result).slice(0, 160)}`;
  if (!Array.isArray(result?.structuredContent?.hits)) return "result without hits";
  return null;
}

/**
 * Drives tools/call memory_search on every session at once for `durationS` seconds, each session
 * one request at a time, session `i` walking `queries` from offset `i * stride`.
 */
export async function driveSearch(
  mcp: string,
  options: { sessions: McpSession[]; queries: string[]; durationS: number },
): Promise<LoadResult> {
  const { sessions, queries, durationS } = options;
  const url = new URL(mcp);
  const result: LoadResult = {
    sessions: sessions.length,
    wallMs: 0,
    latency: [],
    ok: 0,
    statuses: {},
    rpcErrors: 0,
    connErrors: 0,
    samples: [],
  };
  const fail = (why: string) => {
    if (result.samples.length < 5) result.samples.push(why);
  };
  const stride = Math.max(1, Math.floor(queries.length / sessions.length));
  const started = performance.now();
  const instances = sessions.map((session, i) => {
    let next = i * stride;
    let rpcId = 0;
    const instance = run({
      url: url.href,
      method: "POST",
      connections: 1,
      pipelining: 1,
      duration: durationS,
      headers: session.headers,
      requests: [{
        setupRequest: (req: Record<string, unknown>) => {
          rpcId++;
          const query = queries[next++ % queries.length];
          return {
            ...req,
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: rpcId,
              method: "tools/call",
              params: { name: "memory_search", arguments: { query } },
            }),
          };
        },
        onResponse: (status: number, body: string) => {
          if (status !== 200) return;
          const why = answerError(body, rpcId);
          if (why) {
            result.rpcErrors++;
            fail(why);
          } else result.ok++;
        },
      }],
    });
    instance.on("response", (_client, status, _bytes, ms) => {
      result.latency.push(ms);
      if (status !== 200) {
        result.statuses[status] = (result.statuses[status] ?? 0) + 1;
        fail(`HTTP ${status}`);
      }
    });
    instance.on("reqError", (err) => fail(`connection: ${err.message}`));
    return instance;
  });
  const done = await Promise.all(instances);
  result.wallMs = performance.now() - started;
  result.connErrors = done.reduce((n, r) => n + r.errors, 0);
  return result;
}

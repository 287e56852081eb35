import assert from "node:assert/strict";
import { SessionEventStore } from "../../src/http/event_store.ts";
import { quality, replyMode } from "../../src/http/reply_mode.ts";
import { SessionTransport } from "../../src/http/session_transport.ts";
import type { HttpSession } from "../../src/http/sessions.ts";
import type { JSONRPCMessage } from "../../src/mcp/sdk.ts";
import {
  initializeBody,
  mcpHeaders,
  openSession,
  sessionHeaders,
  sseReader,
  startServer,
} from "./http_helpers.ts";

const BOTH = "application/json, text/event-stream";
const PING = { jsonrpc: "2.0", id: 1, method: "ping" } as JSONRPCMessage;
const SEARCH_WITH_PROGRESS = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "memory_search", arguments: { query: "x" }, _meta: { progressToken: "p1" } },
} as JSONRPCMessage;

function post(mcp: string, headers: Headers, body: unknown): Promise<Response> {
  return fetch(mcp, { method: "POST", headers, body: JSON.stringify(body) });
}

Deno.test("reply mode: Accept q-values decide; on a tie only a request that may stream gets SSE", () => {
  assert.equal(quality(BOTH, "application/json"), 1);
  assert.equal(quality("application/json;q=0.4, text/*", "application/json"), 0.4);
  assert.equal(quality("application/json;q=0.4, text/*", "text/event-stream"), 1);
  assert.equal(quality("*/*;q=0.2", "text/event-stream"), 0.2);
  assert.equal(quality("text/html", "application/json"), 0);
  const mode = (accept: string, message: JSONRPCMessage, clientMayBeAsked = false) =>
    replyMode(accept, { message, clientMayBeAsked });
  assert.equal(mode(BOTH, PING), "json");
  assert.equal(mode(BOTH, SEARCH_WITH_PROGRESS), "sse", "progress travels on the stream");
  assert.equal(mode(BOTH, PING, true), "sse", "a sampling client may be asked mid-call");
  assert.equal(mode("application/json;q=0.9, text/event-stream", PING), "sse");
  assert.equal(mode("application/json, text/event-stream;q=0.1", SEARCH_WITH_PROGRESS), "json");
});

Deno.test("http reply mode: plain JSON on a tie, SSE for progress or when asked for, over a real server", async () => {
  await using srv = await startServer();
  const init = await post(srv.mcp, mcpHeaders("tok-read"), JSON.parse(initializeBody()));
  assert.equal(init.headers.get("content-type"), "application/json");
  const id = init.headers.get("mcp-session-id")!;
  assert.ok(id, "the JSON reply to initialize carries the session id");
  assert.equal((await init.json()).result.protocolVersion, "2025-11-25");

  const headers = sessionHeaders("tok-read", id);
  const ping = await post(srv.mcp, headers, PING);
  assert.equal(ping.status, 200);
  assert.equal(ping.headers.get("content-type"), "application/json");
  assert.equal(ping.headers.get("mcp-session-id"), id);
  assert.deepEqual(await ping.json(), { jsonrpc: "2.0", id: 1, result: {} });

  const streamed = await post(srv.mcp, headers, SEARCH_WITH_PROGRESS);
  assert.equal(streamed.headers.get("content-type"), "text/event-stream");
  const events = sseReader(streamed.body!);
  assert.equal((await events.next()).data, "", "priming event first");
  const reply = JSON.parse((await events.next()).data);
  assert.equal(reply.id, 2);
  assert.ok(reply.result.structuredContent.hits, "the search result");
  await events.cancel();

  const prefersJson = sessionHeaders("tok-read", id);
  prefersJson.set("Accept", "application/json, text/event-stream;q=0.5");
  const json = await post(srv.mcp, prefersJson, { ...SEARCH_WITH_PROGRESS, id: 3 });
  assert.equal(json.headers.get("content-type"), "application/json");
  assert.equal((await json.json()).id, 3);
});

Deno.test("http reply mode: a client that can be sampled gets SSE on a tie", async () => {
  await using srv = await startServer();
  const body = JSON.parse(initializeBody());
  body.params.capabilities = { sampling: {} };
  const init = await post(srv.mcp, mcpHeaders("tok-read"), body);
  await init.body?.cancel();
  const id = init.headers.get("mcp-session-id")!;
  const ping = await post(srv.mcp, sessionHeaders("tok-read", id), PING);
  assert.equal(ping.headers.get("content-type"), "text/event-stream");
  await ping.body?.cancel();
});

Deno.test("http: an open GET stream keeps an otherwise idle session alive", async () => {
  let now = 1_000_000;
  let listening: HttpSession | undefined;
  await using srv = await startServer({
    settings: { session_idle_ms: 60_000 },
    app: { now: () => now, onSession: (s) => void (listening = s) },
  });
  const id = await openSession(srv.mcp, "tok-read");
  const getHeaders = sessionHeaders("tok-read", id);
  getHeaders.set("Accept", "text/event-stream");
  const get = await fetch(srv.mcp, { headers: getHeaders });
  const stream = sseReader(get.body!);
  await stream.next(); // priming
  now += 120_000;
  const ping = await post(srv.mcp, sessionHeaders("tok-read", id), PING);
  assert.equal(ping.status, 200, "listening on GET counts as use");
  await ping.body?.cancel();
  await stream.cancel();
  // The server learns of the closed stream from the connection; wait until it has.
  const transport = listening!.transport as SessionTransport;
  for (let i = 0; transport.listening && i < 400; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(transport.listening, false);
  now += 120_000;
  assert.equal((await post(srv.mcp, sessionHeaders("tok-read", id), PING)).status, 404);
});

/** A transport whose "server" answers through `handler`. */
function transportWith(
  handler: (t: SessionTransport, message: JSONRPCMessage) => void,
): SessionTransport {
  const t = new SessionTransport("sess", {
    events: new SessionEventStore(16),
    retryMs: 1000,
    keepAliveMs: 60_000,
    protocolVersion: "2025-11-25",
  });
  t.onmessage = (m) => handler(t, m);
  return t;
}

Deno.test("session transport: what relates to a JSON-answered request goes on the GET stream", async () => {
  const t = transportWith((t, m) => {
    if (!("id" in m) || !("method" in m)) return;
    const note = { jsonrpc: "2.0", method: "notifications/message", params: { data: "working" } };
    void t.send(note as JSONRPCMessage, { relatedRequestId: m.id })
      .then(() => t.send({ jsonrpc: "2.0", id: m.id, result: {} } as JSONRPCMessage));
  });
  try {
    const get = await t.get(null);
    const stream = sseReader(get.body!);
    await stream.next(); // priming
    const res = await t.post(PING, { accept: BOTH });
    assert.deepEqual(await res.json(), { jsonrpc: "2.0", id: 1, result: {} });
    const note = await stream.next();
    assert.equal(JSON.parse(note.data).params.data, "working");
    assert.match(note.id!, /^_GET_stream\./);
    await stream.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("session transport: cancelled, duplicate and closed requests all end their HTTP request", async () => {
  const t = transportWith(() => {}); // never answers
  const pending = t.post(PING, { accept: BOTH });
  const dup = await t.post(PING, { accept: BOTH });
  assert.equal(dup.status, 400);
  assert.match((await dup.json()).error.message, /request id 1 is already in use/);
  const cancelled = await t.post({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1 },
  } as JSONRPCMessage, { accept: BOTH });
  assert.equal(cancelled.status, 202);
  const answered = await pending;
  assert.equal(answered.status, 200, "the cancelled request's POST ends with a reply");
  assert.deepEqual(await answered.json(), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32800, message: "Request cancelled" },
  });
  // The request's own reply, had the server still sent one, would find nobody waiting.
  await t.send({ jsonrpc: "2.0", id: 1, result: {} } as JSONRPCMessage);
  const orphan = t.post({ ...PING, id: 9 } as JSONRPCMessage, { accept: BOTH });
  await t.close();
  const res = await orphan;
  assert.equal(res.status, 404, "closing the session ends what still waits");
  assert.equal((await t.post(PING, { accept: BOTH })).status, 404);
});

Deno.test("session transport: a cancelled streamed request gets -32800 as its stream's last event", async () => {
  const t = transportWith(() => {}); // never answers
  try {
    const res = await t.post(PING, { accept: "application/json;q=0.1, text/event-stream" });
    const events = sseReader(res.body!);
    await events.next(); // priming
    const note = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
    assert.equal((await t.post(note as JSONRPCMessage, { accept: BOTH })).status, 202);
    assert.deepEqual(JSON.parse((await events.next()).data), {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32800, message: "Request cancelled" },
    });
    await assert.rejects(events.next(), /stream ended/, "then the stream ends");
  } finally {
    await t.close();
  }
});

Deno.test("session transport: a resumed request stream replays its reply and ends", async () => {
  let answer: (() => void) | undefined;
  const t = transportWith((t, m) => {
    if ("id" in m && "method" in m) {
      answer = () => void t.send({ jsonrpc: "2.0", id: m.id, result: { ok: 1 } } as JSONRPCMessage);
    }
  });
  try {
    const res = await t.post(PING, { accept: "application/json;q=0.1, text/event-stream" });
    const events = sseReader(res.body!);
    const priming = await events.next();
    await events.cancel(); // the connection drops before the reply
    answer!();
    const resumed = await t.get(priming.id!);
    const again = sseReader(resumed.body!);
    assert.deepEqual(JSON.parse((await again.next()).data).result, { ok: 1 });
    await assert.rejects(again.next(), /stream ended/, "nothing more to carry: the stream ends");
    assert.equal((await t.get("nope.1")).status, 400);
  } finally {
    await t.close();
  }
});

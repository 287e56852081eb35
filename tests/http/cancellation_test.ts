/**
 * @module A request cancelled with notifications/cancelled over Streamable HTTP: engram answers it
 * -32800 on its stream, then ends the stream. The SDK client, which cancelled it, drops that reply
 * and keeps working; a raw client sees the reply. The request held open is an exposed upstream tool
 * (`slow`), which says when it started waiting.
 */
import assert from "node:assert/strict";
import { NO_CHANGES, upstreamSetup, WELL } from "../cli/_signed_upstreams.ts";
import { resultText, withTimeout } from "../helpers.ts";
import { connectHttp, createToken, sessionHeaders, spawnServe, sseReader } from "./http_helpers.ts";

/** `engram serve` with files' slow, echo and stats exposed at read, and a read token for it. */
async function servedUpstream() {
  const s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { slow: "read", echo: "read", stats: "read" });
  const token = await createToken(s.dir, { client: "alice", tier: "read" });
  const serve = await spawnServe(s.dir, [], { env: NO_CHANGES });
  return {
    mcp: `${serve.url}/mcp`,
    token,
    [Symbol.asyncDispose]: async () => {
      serve.child.kill("SIGTERM");
      await serve.child.status;
      await serve.stderr();
      await s[Symbol.asyncDispose]();
    },
  };
}

Deno.test("http cancellation: the SDK client drops the -32800 of a call it cancelled and keeps working; a raw client sees it", async () => {
  await using served = await servedUpstream();
  const unknownReplies: string[] = [];
  let dropped: () => void;
  const droppedReply = new Promise<void>((resolve) => dropped = resolve);
  await using client = await connectHttp(served.mcp, served.token, {
    setup: (c) => {
      c.onerror = (err) => {
        unknownReplies.push(err.message);
        if (/unknown message ID/.test(err.message)) dropped();
      };
    },
  });
  const abort = new AbortController();
  await assert.rejects(
    client.callTool({ name: "mcp_files_slow", arguments: { ms: 60_000 } }, undefined, {
      signal: abort.signal,
      // The upstream's progress 0 says it is waiting: cancel then.
      onprogress: () => abort.abort("no longer needed"),
    }),
    /no longer needed/,
  );
  await withTimeout(droppedReply, "the -32800 reply reaching the SDK client");
  assert.match(unknownReplies.join("\n"), /"code":-32800,"message":"Request cancelled"/);
  const echoed = await client.callTool({ name: "mcp_files_echo", arguments: { text: "after" } });
  assert.equal(resultText(echoed), "echo: after", "the session works on after the cancellation");
  const stats = JSON.parse(
    resultText(await client.callTool({ name: "mcp_files_stats", arguments: {} })),
  );
  assert.equal(stats.cancelled.length, 1, "the cancellation reached the upstream");

  // A raw client: the call streams (it carries a progressToken), is cancelled mid-wait, and its
  // stream ends with the -32800 reply.
  const init = await fetch(served.mcp, {
    method: "POST",
    headers: new Headers({
      Authorization: `Bearer ${served.token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    }),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    }),
  });
  await init.body?.cancel();
  const id = init.headers.get("mcp-session-id")!;
  const post = (body: unknown) =>
    fetch(served.mcp, {
      method: "POST",
      headers: sessionHeaders(served.token, id),
      body: JSON.stringify(body),
    });
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" })).body?.cancel();
  const call = await post({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "mcp_files_slow", arguments: { ms: 60_000 }, _meta: { progressToken: "w" } },
  });
  assert.equal(call.headers.get("content-type"), "text/event-stream");
  const events = sseReader(call.body!);
  let event = await events.next();
  while (event.data === "" || JSON.parse(event.data).method !== "notifications/progress") {
    event = await events.next();
  }
  const cancelled = await post({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 7, reason: "raw client gave up" },
  });
  await cancelled.body?.cancel();
  assert.equal(cancelled.status, 202);
  assert.deepEqual(JSON.parse((await events.next()).data), {
    jsonrpc: "2.0",
    id: 7,
    error: { code: -32800, message: "Request cancelled" },
  });
  await assert.rejects(events.next(), /stream ended/, "the request's stream ends after its reply");
});

import assert from "node:assert/strict";
import { Client, SSEClientTransport } from "../../src/mcp/sdk_client.ts";
import { callErr, callOk, connectLikeAClient } from "../helpers.ts";
import { initializeBody, sseReader, startServer } from "./http_helpers.ts";

Deno.test("legacy SSE: an SDK client works over /sse + /messages at its token's tier", async () => {
  await using srv = await startServer();
  const transport = new SSEClientTransport(new URL(`${srv.url}/sse`), {
    requestInit: { headers: { Authorization: "Bearer tok-read" } },
  });
  const client = new Client({ name: "legacy-test", version: "1.0.0" });
  await connectLikeAClient(client, transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "memory_search"));
    assert.ok(!tools.some((t) => t.name === "memory_remember"));
    await callOk(client, "memory_search", { query: "anything" });
    // A listed tool's error reaches the client as a result, not as an output-schema McpError.
    assert.equal(
      (await callErr(client, "memory_search", { query: "x", brain: "nope" })).code,
      "no_brain",
    );
    assert.equal(
      (await callErr(client, "memory_remember", { content: "# x\ny" })).code,
      "forbidden",
    );
    assert.equal(srv.app.sessions.size, 1);
  } finally {
    await client.close();
  }
});

Deno.test("legacy SSE: endpoint event, 400/404/403 on /messages, stream close removes the session", async () => {
  const closed = Promise.withResolvers<void>();
  await using srv = await startServer({ app: { onSessionClosed: () => closed.resolve() } });
  const res = await fetch(`${srv.url}/sse`, {
    headers: { Authorization: "Bearer tok-read", Accept: "text/event-stream" },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
  const events = sseReader(res.body!);
  const endpoint = await events.next();
  assert.equal(endpoint.event, "endpoint");
  assert.match(endpoint.data, /^\/messages\?sessionId=[\x21-\x7e]{40,}$/);
  const messages = `${srv.url}${endpoint.data}`;
  const headers = (token: string) => ({
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
  });

  const noId = await fetch(`${srv.url}/messages`, {
    method: "POST",
    headers: headers("tok-read"),
    body: initializeBody(),
  });
  await noId.body?.cancel();
  assert.equal(noId.status, 400);
  const unknown = await fetch(`${srv.url}/messages?sessionId=nope`, {
    method: "POST",
    headers: headers("tok-read"),
    body: initializeBody(),
  });
  await unknown.body?.cancel();
  assert.equal(unknown.status, 404);
  const foreign = await fetch(messages, {
    method: "POST",
    headers: headers("tok-bob"),
    body: initializeBody(),
  });
  await foreign.body?.cancel();
  assert.equal(foreign.status, 403);

  const old = await fetch(messages, {
    method: "POST",
    headers: headers("tok-read"),
    body: initializeBody("2024-11-05", 5),
  });
  await old.body?.cancel();
  assert.equal(old.status, 202);
  const rejected = JSON.parse((await events.next()).data);
  assert.equal(rejected.id, 5);
  assert.equal(rejected.error.code, -32602);
  assert.deepEqual(rejected.error.data.supported, ["2025-11-25"]);

  const init = await fetch(messages, {
    method: "POST",
    headers: headers("tok-read"),
    body: initializeBody("2025-11-25", 6),
  });
  await init.body?.cancel();
  assert.equal(init.status, 202);
  const reply = JSON.parse((await events.next()).data);
  assert.equal(reply.id, 6);
  assert.equal(reply.result.protocolVersion, "2025-11-25");

  assert.equal(srv.app.sessions.size, 1);
  await events.cancel();
  await closed.promise;
  const gone = await fetch(messages, { method: "POST", headers: headers("tok-read"), body: "{}" });
  await gone.body?.cancel();
  assert.equal(gone.status, 404);
  assert.equal(srv.app.sessions.size, 0);
});

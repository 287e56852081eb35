import assert from "node:assert/strict";
import { callErr, callOk } from "../helpers.ts";
import { connectHttp, openSession, sessionHeaders, startServer } from "./http_helpers.ts";

Deno.test("http: an SDK client lists and calls tools at its token's tier", async () => {
  await using srv = await startServer();
  await using reader = await connectHttp(srv.mcp, "tok-read");
  const { tools } = await reader.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes("memory_search"));
  assert.ok(!names.includes("memory_remember"), "a read token does not see write tools");
  const found = await callOk<{ hits: unknown[] }>(reader, "memory_search", { query: "nothing" });
  assert.deepEqual(found.hits, []);
  const denied = await callErr(reader, "memory_remember", { content: "# No\nread tier" });
  assert.equal(denied.code, "forbidden");
  // A listed tool's error reaches the client as a result, not as an output-schema McpError.
  const missing = await callErr(reader, "memory_search", { query: "x", brain: "nope" });
  assert.equal(missing.code, "no_brain");
  assert.match(missing.message, /brain "nope" not found/);

  await using writer = await connectHttp(srv.mcp, "tok-write");
  await callOk(writer, "memory_remember", { content: "# Over HTTP\nstored through /mcp" });
  const hits = await callOk<{ hits: unknown[] }>(reader, "memory_search", { query: "through" });
  assert.equal(hits.hits.length, 1);
  assert.equal(srv.app.sessions.size, 2);
});

Deno.test("http: DELETE ends the session; later requests with its id get 404", async () => {
  await using srv = await startServer();
  const client = await connectHttp(srv.mcp, "tok-read");
  await client.listTools();
  assert.equal(srv.app.sessions.size, 1);
  await client[Symbol.asyncDispose]();
  assert.equal(srv.app.sessions.size, 0);
});

// The conformance suite's server-sse-multiple-streams sends these with a wrong version header
// (baselined); this is the same check with the header the session negotiated.
Deno.test("http: concurrent POSTs in one session are all answered", async () => {
  await using srv = await startServer();
  const id = await openSession(srv.mcp, "tok-read");
  const replies = await Promise.all([0, 1, 2].map(async (i) => {
    const res = await fetch(srv.mcp, {
      method: "POST",
      headers: sessionHeaders("tok-read", id),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1000 + i, method: "tools/list", params: {} }),
    });
    const text = await res.text();
    return { status: res.status, text };
  }));
  assert.deepEqual(replies.map((r) => r.status), [200, 200, 200]);
  replies.forEach((r, i) => assert.match(r.text, new RegExp(`"id":${1000 + i}\\b`)));
});

import assert from "node:assert/strict";
import {
  initializeBody,
  mcpHeaders,
  openSession,
  sessionHeaders,
  startServer,
} from "./http_helpers.ts";

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });

/** A JSON-RPC error body. */
interface RpcError {
  id?: unknown;
  error: { code: number; message: string; data?: unknown };
}

/** POSTs to /mcp and returns status, headers and the parsed JSON body (if any). */
async function post(
  url: string,
  init: { headers: Headers; body: BodyInit },
): Promise<{ status: number; headers: Headers; json: RpcError | null }> {
  const res = await fetch(url, { method: "POST", ...init });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON (an SSE body or empty).
  }
  return { status: res.status, headers: res.headers, json };
}

Deno.test("http status: malformed bodies, media types and Accept", async (t) => {
  await using srv = await startServer();
  await t.step("bad JSON → 400 with JSON-RPC -32700", async () => {
    const r = await post(srv.mcp, { headers: mcpHeaders("tok-read"), body: "{not json" });
    assert.equal(r.status, 400);
    assert.equal(r.json?.error.code, -32700);
  });
  await t.step("a batch → 400 with -32600", async () => {
    const r = await post(srv.mcp, { headers: mcpHeaders("tok-read"), body: `[${LIST}]` });
    assert.equal(r.status, 400);
    assert.equal(r.json?.error.code, -32600);
  });
  await t.step("not JSON-RPC → 400 with -32600", async () => {
    const r = await post(srv.mcp, { headers: mcpHeaders("tok-read"), body: `{"hello":1}` });
    assert.equal(r.status, 400);
    assert.equal(r.json?.error.code, -32600);
  });
  await t.step("wrong Content-Type → 415", async () => {
    const headers = mcpHeaders("tok-read", { "Content-Type": "text/plain" });
    const r = await post(srv.mcp, { headers, body: initializeBody() });
    assert.equal(r.status, 415);
  });
  await t.step("missing Accept → 406", async () => {
    const headers = mcpHeaders("tok-read");
    headers.delete("Accept");
    const r = await post(srv.mcp, { headers, body: initializeBody() });
    assert.equal(r.status, 406);
  });
  await t.step("Accept without text/event-stream → 406", async () => {
    const headers = mcpHeaders("tok-read", { Accept: "application/json" });
    const r = await post(srv.mcp, { headers, body: initializeBody() });
    assert.equal(r.status, 406);
  });
  await t.step("a 10 MB body → 413", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { pad: "x".repeat(10 * 1024 * 1024) },
    });
    const r = await post(srv.mcp, { headers: mcpHeaders("tok-read"), body: big });
    assert.equal(r.status, 413);
  });
  await t.step("a 10 MB streamed body without Content-Length → 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 10) c.enqueue(chunk);
        else c.close();
      },
    });
    const r = await post(srv.mcp, { headers: mcpHeaders("tok-read"), body });
    assert.equal(r.status, 413);
  });
  await t.step("unknown path → 404, unsupported method → 405", async () => {
    assert.equal(
      (await post(`${srv.url}/nope`, { headers: mcpHeaders("tok-read"), body: "" })).status,
      404,
    );
    const res = await fetch(srv.mcp, { method: "PUT", headers: mcpHeaders("tok-read") });
    await res.body?.cancel();
    assert.equal(res.status, 405);
  });
});

Deno.test("http status: protocol version strictness", async (t) => {
  await using srv = await startServer();
  await t.step("initialize asking an older version → -32602 with data.supported", async () => {
    const r = await post(srv.mcp, {
      headers: mcpHeaders("tok-read"),
      body: initializeBody("2025-06-18", 7),
    });
    assert.equal(r.json?.id, 7);
    assert.equal(r.json?.error.code, -32602);
    assert.equal(r.json?.error.message, "Unsupported protocol version");
    assert.deepEqual(r.json?.error.data, { supported: ["2025-11-25"], requested: "2025-06-18" });
    assert.equal(r.headers.get("mcp-session-id"), null, "no session was opened");
    assert.equal(srv.app.sessions.size, 0);
  });
  const id = await openSession(srv.mcp, "tok-read");
  await t.step("a wrong MCP-Protocol-Version header after initialize → 400", async () => {
    const headers = sessionHeaders("tok-read", id);
    headers.set("MCP-Protocol-Version", "2025-03-26");
    const r = await post(srv.mcp, { headers, body: LIST });
    assert.equal(r.status, 400);
  });
  await t.step("the right header → 200", async () => {
    const r = await post(srv.mcp, { headers: sessionHeaders("tok-read", id), body: LIST });
    assert.equal(r.status, 200);
  });
  await t.step("no header: the session's negotiated version applies → 200", async () => {
    const headers = sessionHeaders("tok-read", id);
    headers.delete("MCP-Protocol-Version");
    const r = await post(srv.mcp, { headers, body: LIST });
    assert.equal(r.status, 200);
  });
});

Deno.test("http status: accept_older_protocols admits an older initialize", async () => {
  await using srv = await startServer({ settings: { accept_older_protocols: true } });
  const res = await fetch(srv.mcp, {
    method: "POST",
    headers: mcpHeaders("tok-read"),
    body: initializeBody("2025-06-18"),
  });
  const text = await res.text();
  assert.equal(res.status, 200);
  assert.match(text, /"protocolVersion":"2025-06-18"/);
});

Deno.test("http status: sessions — missing id 400, unknown 404, notification 202, ended 404", async () => {
  await using srv = await startServer();
  const missing = await post(srv.mcp, { headers: mcpHeaders("tok-read"), body: LIST });
  assert.equal(missing.status, 400);
  const unknown = await post(srv.mcp, { headers: sessionHeaders("tok-read", "nope"), body: LIST });
  assert.equal(unknown.status, 404);
  const id = await openSession(srv.mcp, "tok-read");
  assert.match(id, /^[\x21-\x7e]{40,}$/, "session ids are long and visible ASCII");
  const note = await post(srv.mcp, {
    headers: sessionHeaders("tok-read", id),
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 99 },
    }),
  });
  assert.equal(note.status, 202);
  const del = await fetch(srv.mcp, { method: "DELETE", headers: sessionHeaders("tok-read", id) });
  await del.body?.cancel();
  assert.equal(del.status, 200);
  const after = await post(srv.mcp, { headers: sessionHeaders("tok-read", id), body: LIST });
  assert.equal(after.status, 404);
});

Deno.test("http status: an idle session expires and then gets 404", async () => {
  let now = 1_000_000;
  await using srv = await startServer({
    settings: { session_idle_ms: 60_000 },
    app: { now: () => now },
  });
  const id = await openSession(srv.mcp, "tok-read");
  now += 30_000;
  assert.equal(
    (await post(srv.mcp, { headers: sessionHeaders("tok-read", id), body: LIST })).status,
    200,
  );
  now += 61_000;
  assert.equal(
    (await post(srv.mcp, { headers: sessionHeaders("tok-read", id), body: LIST })).status,
    404,
  );
  assert.equal(srv.app.sessions.size, 0);
});

Deno.test("http status: Origin and Host checks", async (t) => {
  await using srv = await startServer();
  const port = new URL(srv.url).port;
  for (const origin of [`http://localhost:${port}`, "http://127.0.0.1:3000", "http://[::1]"]) {
    await t.step(`loopback Origin ${origin} → allowed`, async () => {
      const r = await post(srv.mcp, {
        headers: mcpHeaders("tok-read", { Origin: origin }),
        body: initializeBody(),
      });
      assert.equal(r.status, 200);
    });
  }
  await t.step("foreign Origin → 403", async () => {
    const r = await post(srv.mcp, {
      headers: mcpHeaders("tok-read", { Origin: "https://evil.example" }),
      body: initializeBody(),
    });
    assert.equal(r.status, 403);
  });
  await t.step("Origin: null → 403", async () => {
    const r = await post(srv.mcp, {
      headers: mcpHeaders("tok-read", { Origin: "null" }),
      body: initializeBody(),
    });
    assert.equal(r.status, 403);
  });
  await t.step(
    "foreign Host on a loopback server → 403 (fetch cannot set Host: raw TCP)",
    async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
      const body = initializeBody();
      const request = [
        "POST /mcp HTTP/1.1",
        `Host: evil.example:${port}`,
        "Authorization: Bearer tok-read",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        `Content-Length: ${new TextEncoder().encode(body).length}`,
        "Connection: close",
        "",
        body,
      ].join("\r\n");
      await conn.write(new TextEncoder().encode(request));
      const reply = await new Response(conn.readable).text();
      assert.match(reply, /^HTTP\/1\.1 403/);
    },
  );
});

Deno.test("http status: configured origins are allowed, others still refused", async () => {
  await using srv = await startServer({ settings: { allowed_origins: ["https://app.example"] } });
  const ok = await post(srv.mcp, {
    headers: mcpHeaders("tok-read", { Origin: "https://app.example" }),
    body: initializeBody(),
  });
  assert.equal(ok.status, 200);
  const no = await post(srv.mcp, {
    headers: mcpHeaders("tok-read", { Origin: "https://other.example" }),
    body: initializeBody(),
  });
  assert.equal(no.status, 403);
});

Deno.test("http status: badly formed tools/call and tools/list params → -32602 naming the field", async () => {
  await using srv = await startServer();
  const id = await openSession(srv.mcp, "tok-read");
  const call = await post(srv.mcp, {
    headers: sessionHeaders("tok-read", id),
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 5 } }),
  });
  assert.equal(call.status, 200);
  assert.equal(call.json?.id, 7);
  assert.equal(call.json?.error.code, -32602);
  assert.match(call.json!.error.message, /^Invalid tools\/call request: .*"name"/s);
  const list = await post(srv.mcp, {
    headers: sessionHeaders("tok-read", id),
    body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list", params: { cursor: 1 } }),
  });
  assert.equal(list.json?.error.code, -32602);
  assert.match(list.json!.error.message, /^invalid tools\/list request: params\.cursor/);
});

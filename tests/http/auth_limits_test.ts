import assert from "node:assert/strict";
import {
  initializeBody,
  mcpHeaders,
  openSession,
  sessionHeaders,
  startServer,
} from "./http_helpers.ts";

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });

Deno.test("http auth: missing or invalid token → 401 with a Bearer challenge naming the metadata", async (t) => {
  await using srv = await startServer();
  const metadata = `${srv.url}/.well-known/oauth-protected-resource`;
  await t.step("no token", async () => {
    const res = await fetch(srv.mcp, {
      method: "POST",
      headers: mcpHeaders(null),
      body: initializeBody(),
    });
    await res.body?.cancel();
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("www-authenticate"), `Bearer resource_metadata="${metadata}"`);
  });
  await t.step("invalid token", async () => {
    const res = await fetch(srv.mcp, {
      method: "POST",
      headers: mcpHeaders("nope"),
      body: initializeBody(),
    });
    await res.body?.cancel();
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get("www-authenticate")!,
      /^Bearer error="invalid_token", resource_metadata="/,
    );
  });
  await t.step("GET /sse and POST /messages need a token too", async () => {
    for (const [path, method] of [["/sse", "GET"], ["/messages?sessionId=x", "POST"]]) {
      const res = await fetch(`${srv.url}${path}`, {
        method,
        headers: { Accept: "text/event-stream" },
      });
      await res.body?.cancel();
      assert.equal(res.status, 401, path);
    }
  });
  await t.step("the protected-resource metadata is public", async () => {
    const res = await fetch(metadata);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      resource: srv.mcp,
      bearer_methods_supported: ["header"],
      resource_name: "engram",
    });
  });
});

Deno.test("http auth: another client's valid token cannot drive a session (403)", async () => {
  await using srv = await startServer();
  const id = await openSession(srv.mcp, "tok-read");
  const res = await fetch(srv.mcp, {
    method: "POST",
    headers: sessionHeaders("tok-bob", id),
    body: LIST,
  });
  await res.body?.cancel();
  assert.equal(res.status, 403);
  const del = await fetch(srv.mcp, { method: "DELETE", headers: sessionHeaders("tok-bob", id) });
  await del.body?.cancel();
  assert.equal(del.status, 403);
  // The same client with another of its tokens may (the session is bound to the client, not the token).
  const own = await fetch(srv.mcp, {
    method: "POST",
    headers: sessionHeaders("tok-write", id),
    body: LIST,
  });
  await own.body?.cancel();
  assert.equal(own.status, 200);
});

Deno.test("http limits: a flood past requests_per_minute → 429 with Retry-After; another client still gets 200", async () => {
  await using srv = await startServer({ settings: { requests_per_minute: 5 } });
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 8; i++) {
    const res = await fetch(srv.mcp, {
      method: "POST",
      headers: mcpHeaders("tok-read"),
      body: "{bad",
    });
    await res.body?.cancel();
    statuses.push(res.status);
    if (res.status === 429) retryAfter = res.headers.get("retry-after");
  }
  assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429, 429, 429]);
  assert.ok(Number(retryAfter) >= 1, `Retry-After: ${retryAfter}`);
  const other = await fetch(srv.mcp, {
    method: "POST",
    headers: mcpHeaders("tok-bob"),
    body: initializeBody(),
  });
  await other.body?.cancel();
  assert.equal(other.status, 200);
});

Deno.test("http limits: max_sessions_per_client → 429 with a message; other clients unaffected", async () => {
  await using srv = await startServer({ settings: { max_sessions_per_client: 2 } });
  await openSession(srv.mcp, "tok-read");
  await openSession(srv.mcp, "tok-write");
  const res = await fetch(srv.mcp, {
    method: "POST",
    headers: mcpHeaders("tok-read"),
    body: initializeBody(),
  });
  assert.equal(res.status, 429);
  assert.match((await res.json()).error.message, /too many sessions/);
  await openSession(srv.mcp, "tok-bob");
});

Deno.test("http health: /healthz and /readyz answer without auth and say nothing else", async () => {
  let ready = true;
  await using srv = await startServer({ app: { ready: () => Promise.resolve(ready) } });
  const live = await fetch(`${srv.url}/healthz`);
  assert.equal(live.status, 200);
  assert.equal((await live.text()).trim(), "ok");
  const up = await fetch(`${srv.url}/readyz`);
  assert.equal(up.status, 200);
  await up.body?.cancel();
  ready = false;
  const down = await fetch(`${srv.url}/readyz`);
  assert.equal(down.status, 503);
  assert.equal((await down.text()).trim(), "not ready");
});

Deno.test("http health: /readyz is 503 when the database is closed", async () => {
  await using srv = await startServer({
    app: {
      ready: () => {
        throw new Error("database is not open");
      },
    },
  });
  const res = await fetch(`${srv.url}/readyz`);
  await res.body?.cancel();
  assert.equal(res.status, 503);
});

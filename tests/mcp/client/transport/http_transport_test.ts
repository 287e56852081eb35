/**
 * @module Remote upstreams on loopback through the session layer: Streamable HTTP and legacy SSE
 * (the well-behaved fixture behind the SDK's server transports), `${VAR}` headers, the byte cap
 * on SSE events, stream resumption, and a server that is not there; and a request the upstream
 * does not implement (-32601), shown with a tools-only stdio fixture since the HTTP fixture
 * serves every method a session can send.
 */
import assert from "node:assert/strict";
import type { FetchLike } from "../../../../src/mcp/client/transport/capped_fetch.ts";
import { UpstreamSession } from "../../../../src/mcp/client/session/upstream_session.ts";
import {
  type HttpUpstream,
  startLegacySseUpstream,
  startStreamableHttpUpstream,
} from "../../../fixtures/upstream/http_upstream.ts";
import {
  fixtureServer,
  rejection,
  remoteServer,
  textOf,
  upstreamWorld,
} from "../upstream_setup.ts";

/** A fetch that records each request's method and headers. */
function recordingFetch() {
  const seen: { method: string; headers: Headers }[] = [];
  const fetchLike: FetchLike = (url, init) => {
    seen.push({ method: init?.method ?? "GET", headers: new Headers(init?.headers) });
    return fetch(url, init);
  };
  return { seen, fetch: fetchLike };
}

const TRANSPORTS: ["http" | "sse", () => Promise<HttpUpstream>][] = [
  ["http", () => startStreamableHttpUpstream()],
  ["sse", () => startLegacySseUpstream()],
];

for (const [transport, start] of TRANSPORTS) {
  Deno.test(`http (${transport}): one session for every operation, headers from \${VAR}, ended on close`, async () => {
    await using world = await upstreamWorld({ vars: { DOCS_TOKEN: "s3cret" } });
    await using up = await start();
    const recorder = recordingFetch();
    const server = remoteServer("docs", transport, up.url, {
      headers: { Authorization: "Bearer ${DOCS_TOKEN}", "X-Static": "yes" },
    });
    const session = new UpstreamSession(server, { facts: world.facts, fetch: recorder.fetch });
    try {
      assert.ok((await session.listTools()).some((t) => t.name === "echo"));
      assert.equal(textOf(await session.callTool("echo", { text: "hi" })), "echo: hi");
      const progress: number[] = [];
      await session.callTool("progress", { steps: 2, delay_ms: 1 }, {
        onprogress: (p) => progress.push(p.progress),
      });
      assert.deepEqual(progress, [1, 2]);
      const read = await session.readResource("fixture://notes/today");
      assert.match((read.contents[0] as { text: string }).text, /A note called today/);
      assert.equal(up.sessions(), 1, "one upstream session served it all");
      assert.ok(recorder.seen.length > 3);
      for (const r of recorder.seen) {
        assert.equal(r.headers.get("authorization"), "Bearer s3cret", r.method);
        assert.equal(r.headers.get("x-static"), "yes");
      }
      assert.match(session.identity()!.protocolVersion, /^\d{4}-\d{2}-\d{2}$/);
    } finally {
      await session.close();
    }
    if (transport === "http") {
      assert.ok(recorder.seen.some((r) => r.method === "DELETE"), "the session was ended");
      assert.equal(up.sessions(), 0);
    }
  });

  Deno.test(`http (${transport}): a result over max_result_bytes fails that call only`, async () => {
    await using world = await upstreamWorld();
    await using up = await start();
    const limit = 64 * 1024;
    const session = new UpstreamSession(remoteServer("docs", transport, up.url), {
      facts: world.facts,
      maxResultBytes: limit,
      requestTimeoutMs: 10_000,
    });
    try {
      const error = await rejection(session.callTool("large", { bytes: 4 * limit }));
      assert.equal(error.code, "file_too_large");
      assert.match(
        error.message,
        /^upstream "docs" answered tools\/call "large" with \d+ bytes, over mcp\.max_result_bytes \(65536\)/,
      );
      assert.equal(textOf(await session.callTool("large", { bytes: 1000 })).length, 1000);
      assert.equal(textOf(await session.callTool("echo", { text: "after" })), "echo: after");
    } finally {
      await session.close();
    }
  });
}

Deno.test("http: an upstream's own request over max_result_bytes is answered with an error, not left waiting", async () => {
  await using world = await upstreamWorld();
  await using up = await startStreamableHttpUpstream({ askModel: true });
  const session = new UpstreamSession(remoteServer("docs", "http", up.url), {
    facts: world.facts,
    maxResultBytes: 64 * 1024,
    requestTimeoutMs: 10_000,
  });
  try {
    assert.match(
      textOf(await session.callTool("ask_model", { bytes: 256 * 1024 })),
      /^refused: MCP error -32600: request is 262\d{3} bytes, over engram's mcp\.max_result_bytes \(65536\); send less$/,
    );
    assert.equal(textOf(await session.callTool("echo", { text: "after" })), "echo: after");
  } finally {
    await session.close();
  }
});

Deno.test("http: a response stream dropped mid-call is resumed with Last-Event-ID through the cap", async () => {
  await using world = await upstreamWorld();
  await using up = await startStreamableHttpUpstream({ resumable: true, retryMs: 50 });
  const recorder = recordingFetch();
  const session = new UpstreamSession(remoteServer("docs", "http", up.url), {
    facts: world.facts,
    fetch: recorder.fetch,
    requestTimeoutMs: 10_000,
  });
  try {
    const result = await session.callTool("drop_stream", { ms: 100 });
    assert.equal(textOf(result), "answered after the stream was dropped");
    assert.ok(
      recorder.seen.some((r) => r.method === "GET" && r.headers.get("last-event-id")),
      "resumed with Last-Event-ID",
    );
  } finally {
    await session.close();
  }
});

Deno.test("http: an upstream that is not listening is a clear error, quickly", async () => {
  await using world = await upstreamWorld();
  const up = await startStreamableHttpUpstream();
  const url = up.url;
  await up.close();
  const session = new UpstreamSession(remoteServer("gone", "http", url), {
    facts: world.facts,
    requestTimeoutMs: 5000,
  });
  try {
    const started = Date.now();
    const error = await rejection(session.listTools());
    assert.ok(Date.now() - started < 2000);
    assert.equal(error.code, "provider_unavailable");
    assert.match(
      error.message,
      /^upstream "gone" could not be initialized: .*; check it with: engram mcp doctor gone$/,
    );
    assert.equal(session.status, "down");
  } finally {
    await session.close();
  }
});

Deno.test("http: a session the server forgot (404) is started again and the call goes through", async () => {
  await using world = await upstreamWorld();
  await using up = await startStreamableHttpUpstream();
  const statuses: string[] = [];
  const session = new UpstreamSession(remoteServer("docs", "http", up.url), {
    facts: world.facts,
    onStatus: (s) => statuses.push(s.status),
  });
  try {
    assert.equal(textOf(await session.callTool("echo", { text: "one" })), "echo: one");
    const first = session.identity();
    await up.forget();
    assert.equal(up.sessions(), 0);
    assert.equal(textOf(await session.callTool("echo", { text: "two" })), "echo: two");
    assert.equal(up.sessions(), 1, "a new session");
    assert.notEqual(session.identity(), first, "initialized again");
    assert.deepEqual(statuses, ["ready", "reconnecting", "ready"]);
  } finally {
    await session.close();
  }
});

Deno.test("session: a request the upstream does not implement is not_implemented, naming the method", async () => {
  await using world = await upstreamWorld();
  // failing_half declares and serves tools only.
  const server = await fixtureServer(world.signer, "tools", "failing_half");
  const session = new UpstreamSession(server, { facts: world.facts, requestTimeoutMs: 10_000 });
  try {
    assert.deepEqual(await session.listPrompts(), [], "no prompts declared: not even asked");
    const prompt = await rejection(session.getPrompt("greet"));
    assert.equal(prompt.code, "not_implemented");
    assert.equal(
      prompt.message,
      'upstream "tools" does not implement prompts/get: Method not found',
    );
    const read = await rejection(session.readResource("fixture://text/hello"));
    assert.equal(read.code, "not_implemented");
    assert.equal(
      read.message,
      'upstream "tools" does not implement resources/read: Method not found',
    );
    assert.equal(textOf(await session.callTool("flaky")), "call 1: ok", "the session goes on");
  } finally {
    await session.close();
  }
});

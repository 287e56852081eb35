/**
 * @module JSON-RPC ids JavaScript cannot hold exactly (issue 11 §3): refused at once with -32600
 * and `id: null` over Streamable HTTP and legacy SSE, instead of a request that never ends.
 */
import assert from "node:assert/strict";
import {
  initializeBody,
  openSession,
  sessionHeaders,
  sseReader,
  startServer,
} from "./http_helpers.ts";

/** Ids whose source text no JavaScript number holds exactly. */
const BAD_IDS = [
  "9007199254740993",
  "-9007199254740993",
  "1e21",
  "1e308",
  "1e400",
  "1.5",
  "4503599627370495.5",
  "1e-400",
];

/** Long enough for a loaded machine, far shorter than a session's idle expiry. */
const PROMPTLY_MS = 5_000;

const ping = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;

Deno.test("http: a request id beyond 2^53 (or not an integer) gets -32600 with id null at once", async () => {
  await using srv = await startServer();
  const session = await openSession(srv.mcp, "tok-read");
  const post = (body: string) =>
    fetch(srv.mcp, {
      method: "POST",
      headers: sessionHeaders("tok-read", session),
      body,
      signal: AbortSignal.timeout(PROMPTLY_MS),
    });
  for (const id of BAD_IDS) {
    const res = await post(ping(id));
    assert.equal(res.status, 400, id);
    const body = await res.json();
    assert.equal(body.id, null, id);
    assert.equal(body.error.code, -32600, id);
    assert.match(body.error.message, /^Invalid Request: id .+ send a string id or an integer/);
  }
  const batch = await post(`[${ping("9007199254740993")}, ${ping("1e21")}]`);
  assert.equal(batch.status, 400);
  assert.deepEqual((await batch.json()).id, null);

  // The session still answers, and ids that do fit come back exactly as sent.
  for (const id of ["9007199254740991", "-9007199254740991", '"9007199254740993"', "7"]) {
    const res = await post(ping(id));
    assert.equal(res.status, 200, id);
    const text = await res.text();
    assert.ok(text.includes(`"id":${id}`), `${id} echoed in ${text}`);
    assert.deepEqual(JSON.parse(text).result, {});
  }
});

Deno.test("legacy SSE: a request id beyond 2^53 is refused in the POST's reply; the stream goes on", async () => {
  await using srv = await startServer();
  const stream = await fetch(`${srv.url}/sse`, {
    headers: { Authorization: "Bearer tok-read", Accept: "text/event-stream" },
  });
  const events = sseReader(stream.body!);
  const messages = `${srv.url}${(await events.next()).data}`;
  const post = (body: string) =>
    fetch(messages, {
      method: "POST",
      headers: { Authorization: "Bearer tok-read", "Content-Type": "application/json" },
      body,
      signal: AbortSignal.timeout(PROMPTLY_MS),
    });
  const init = await post(initializeBody());
  await init.body?.cancel();
  assert.equal(JSON.parse((await events.next()).data).id, 1);
  for (const id of BAD_IDS) {
    const res = await post(ping(id));
    assert.equal(res.status, 400, id);
    const body = await res.json();
    assert.equal(body.id, null, id);
    assert.equal(body.error.code, -32600, id);
  }
  const good = await post(ping("9007199254740991"));
  await good.body?.cancel();
  assert.equal(good.status, 202);
  const reply = await events.next();
  assert.ok(reply.data.includes('"id":9007199254740991'), reply.data);
  await events.cancel();
});

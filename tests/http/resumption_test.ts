import assert from "node:assert/strict";
import type { HttpSession } from "../../src/http/sessions.ts";
import type { SessionTransport } from "../../src/http/session_transport.ts";
import {
  openSession,
  sessionHeaders,
  sseReader,
  startServer,
  takeReadyNotice,
} from "./http_helpers.ts";

/** A server that hands its sessions to the test, so the test can push notifications. */
async function serverWithSessions(settings: Record<string, unknown> = {}) {
  const sessions: HttpSession[] = [];
  const srv = await startServer({ settings, app: { onSession: (s) => sessions.push(s) } });
  return { srv, sessions };
}

/** Sends a notification the client can tell apart by `n`. */
function notify(session: HttpSession, n: number): Promise<void> {
  return session.server.notification({
    method: "notifications/tools/list_changed",
    params: { _meta: { n } },
  });
}

function getStream(mcp: string, id: string, lastEventId?: string): Promise<Response> {
  const headers = sessionHeaders("tok-read", id);
  headers.set("Accept", "text/event-stream");
  if (lastEventId) headers.set("Last-Event-ID", lastEventId);
  return fetch(mcp, { method: "GET", headers });
}

Deno.test("http resumption: a dropped GET stream resumes with Last-Event-ID and gets exactly the missed events", async () => {
  const { srv, sessions } = await serverWithSessions();
  await using _ = srv;
  const id = await openSession(srv.mcp, "tok-read");
  const session = sessions[0];

  const first = await getStream(srv.mcp, id);
  assert.equal(first.status, 200);
  const stream = sseReader(first.body!);
  const priming = await stream.next();
  assert.match(priming.id!, /^_GET_stream\.\d+$/, "the event id names the stream");
  assert.equal(priming.retry, "3000");
  assert.equal(priming.data, "");
  await takeReadyNotice(stream);

  await notify(session, 1);
  const a = await stream.next();
  assert.equal(JSON.parse(a.data).params._meta.n, 1);
  assert.notEqual(a.id, priming.id);

  // The server drops the stream mid-way (as a proxy or a restart of the connection would).
  (session.transport as SessionTransport).closeGetStream();
  await assert.rejects(stream.next(), /stream ended/);
  await notify(session, 2);
  await notify(session, 3);

  const resumed = await getStream(srv.mcp, id, a.id);
  assert.equal(resumed.status, 200);
  const again = sseReader(resumed.body!);
  const b = await again.next();
  const c = await again.next();
  assert.deepEqual([b, c].map((e) => JSON.parse(e.data).params._meta.n), [2, 3]);
  assert.ok(b.id !== a.id && c.id !== b.id, "event ids are unique");
  await notify(session, 4);
  const d = await again.next();
  assert.equal(JSON.parse(d.data).params._meta.n, 4, "nothing replayed twice; live events follow");
  await again.cancel();
});

Deno.test("http resumption: the replay buffer is bounded by sse_buffer_events", async () => {
  const { srv, sessions } = await serverWithSessions({ sse_buffer_events: 2 });
  await using _ = srv;
  const id = await openSession(srv.mcp, "tok-read");
  const session = sessions[0];
  const res = await getStream(srv.mcp, id);
  const stream = sseReader(res.body!);
  await stream.next(); // priming
  await takeReadyNotice(stream);
  await notify(session, 1);
  const a = await stream.next();
  (session.transport as SessionTransport).closeGetStream();
  await assert.rejects(stream.next(), /stream ended/);
  for (let n = 2; n <= 5; n++) await notify(session, n);
  const resumed = await getStream(srv.mcp, id, a.id);
  const again = sseReader(resumed.body!);
  const got = [await again.next(), await again.next()].map((e) =>
    JSON.parse(e.data).params._meta.n
  );
  assert.deepEqual(got, [4, 5], "only the newest events survive");
  await again.cancel();
});

Deno.test("http resumption: a POST answered as SSE starts with a priming event; bad Last-Event-ID → 400", async () => {
  const { srv } = await serverWithSessions();
  await using _ = srv;
  const id = await openSession(srv.mcp, "tok-read");
  const headers = sessionHeaders("tok-read", id);
  headers.set("Accept", "application/json;q=0.5, text/event-stream");
  const res = await fetch(srv.mcp, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
  });
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const events = sseReader(res.body!);
  const priming = await events.next();
  assert.ok(priming.id && priming.retry === "3000" && priming.data === "");
  const reply = await events.next();
  assert.deepEqual(JSON.parse(reply.data), { jsonrpc: "2.0", id: 3, result: {} });
  assert.notEqual(reply.id?.split(".")[0], "_GET_stream", "a POST stream has its own id");
  await events.cancel();
  const bad = await getStream(srv.mcp, id, "garbage");
  await bad.body?.cancel();
  assert.equal(bad.status, 400);
});

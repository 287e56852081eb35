import assert from "node:assert/strict";
import {
  initializeBody,
  openSession,
  sessionHeaders,
  sseReader,
  startServer,
  takeReadyNotice,
} from "./http_helpers.ts";

Deno.test("http shutdown: open GET and idle legacy SSE streams end at once, sessions close", async () => {
  await using srv = await startServer();
  const id = await openSession(srv.mcp, "tok-read");
  const headers = sessionHeaders("tok-read", id);
  headers.set("Accept", "text/event-stream");
  const get = sseReader((await fetch(srv.mcp, { headers })).body!);
  await get.next(); // priming
  await takeReadyNotice(get);
  const sse = sseReader(
    (await fetch(`${srv.url}/sse`, {
      headers: { Authorization: "Bearer tok-read", Accept: "text/event-stream" },
    })).body!,
  );
  const endpoint = await sse.next();
  const init = await fetch(`${srv.url}${endpoint.data}`, {
    method: "POST",
    headers: { Authorization: "Bearer tok-read", "Content-Type": "application/json" },
    body: initializeBody(),
  });
  await init.body?.cancel();
  await sse.next(); // the initialize reply
  assert.equal(srv.app.sessions.size, 2);

  // A long grace period: finishing well inside it shows idle streams do not wait it out.
  const started = performance.now();
  await srv.shutdown(30_000);
  assert.ok(performance.now() - started < 5_000, "shutdown waited out the grace period");
  await assert.rejects(get.next(), /stream ended/);
  await assert.rejects(sse.next(), /stream ended/);
  assert.equal(srv.app.sessions.size, 0);
});

/**
 * @module The session's log notices over Streamable HTTP, seen by the real SDK client: the ready
 * notice (sent right after notifications/initialized, before the client's GET stream opens, so the
 * first GET stream carries it) and the notice of a level change, which the level set filters.
 */
import assert from "node:assert/strict";
import { LoggingMessageNotificationSchema } from "../../src/mcp/sdk.ts";
import { collectNotifications } from "../helpers.ts";
import { connectHttp, startServer } from "./http_helpers.ts";

Deno.test("http logging: the SDK client hears the session is ready, and each level change at or below notice", async () => {
  await using srv = await startServer();
  let logs: ReturnType<typeof collectNotifications<typeof LoggingMessageNotificationSchema>>;
  await using client = await connectHttp(srv.mcp, "tok-write", {
    setup: (c) => void (logs = collectNotifications(c, LoggingMessageNotificationSchema)),
  });
  const ready = (await logs!.next()).params;
  assert.equal(ready.level, "notice");
  assert.equal(ready.logger, "engram");
  assert.deepEqual(ready.data, {
    message: "session ready",
    server: "engram",
    version: "test",
    transport: "http",
    tier: "write",
  });
  await client.setLoggingLevel("info");
  assert.deepEqual((await logs!.next()).params.data, {
    message: "log level set to info",
    level: "info",
  });
  await client.setLoggingLevel("warning");
  await client.setLoggingLevel("notice");
  // The change to warning was not sent (notice is below warning); the one back to notice was.
  assert.deepEqual((await logs!.next()).params.data, {
    message: "log level set to notice",
    level: "notice",
  });
  assert.equal(logs!.received.length, 3);
});

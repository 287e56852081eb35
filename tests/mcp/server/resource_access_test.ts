import assert from "node:assert/strict";
import { ResourceUpdatedNotificationSchema } from "../../../src/mcp/sdk.ts";
import { Client, InMemoryTransport } from "../../../src/mcp/sdk_client.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import type { CallerContext } from "../../../src/core/types.ts";
import { registerResources } from "../../../src/mcp/server/resources/resources.ts";
import { registerSubscriptions } from "../../../src/mcp/server/resources/subscriptions.ts";
import { SessionServer } from "../../../src/mcp/server/session/session_server.ts";
import { ADMIN, collectNotifications, openService, tempDir } from "../../helpers.ts";

/** A client of a server that has only the resource handlers, for a caller limited to `default`. */
async function limitedSession(dir: string) {
  const svc = await openService(dir);
  const caller: CallerContext = {
    clientId: "t",
    transport: "http",
    tier: "read",
    brains: ["default"],
  };
  const server = new SessionServer(
    { name: "engram", version: "test" },
    { capabilities: { resources: { subscribe: true } } },
  );
  const deps = {
    service: svc.service,
    audit: svc.storage.audit,
    caller,
    logger: silentLogger,
    serverLogger: silentLogger,
  };
  registerResources(server, { ...deps, version: "test" });
  const stop = registerSubscriptions(server, deps);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(b);
  return {
    client,
    service: svc.service,
    [Symbol.asyncDispose]: async () => {
      stop();
      await client.close();
      await server.close();
      svc.storage.close();
    },
  };
}

Deno.test("resources: brains outside the caller's list are not found and not listed", async () => {
  await using dir = await tempDir();
  await using s = await limitedSession(dir.path);
  await s.service.createBrain({ name: "Secret", slug: "secret", visibility: "private" });
  const hidden = await s.service.remember(ADMIN, { content: "# Hidden\nx", brain: "secret" });

  const { resources } = await s.client.listResources();
  assert.ok(!resources.some((r) => r.uri.includes("secret")));
  const brains = await s.client.readResource({ uri: "engram://brains" });
  assert.doesNotMatch((brains.contents[0] as { text: string }).text, /secret/);
  for (
    const uri of [
      "engram://brains/secret/documents",
      `engram://documents/${hidden.id}`,
      "engram://brains/secret/documents/memory/global/hidden.md",
      "engram://context/search?query=hidden&brain=secret",
    ]
  ) {
    await assert.rejects(
      s.client.readResource({ uri }),
      (err: { code: number; data?: { uri: string } }) =>
        err.code === -32002 && err.data?.uri === uri,
      uri,
    );
  }
});

Deno.test("resources: a subscriber hears nothing about a brain it may not access", async () => {
  await using dir = await tempDir();
  await using s = await limitedSession(dir.path);
  await s.service.createBrain({ name: "Secret", slug: "secret", visibility: "private" });
  const hidden = await s.service.remember(ADMIN, { content: "# Hidden\nx", brain: "secret" });
  const seen = await s.service.remember(ADMIN, { content: "# Seen\nx", brain: "default" });
  const updates = collectNotifications(s.client, ResourceUpdatedNotificationSchema);
  await s.client.subscribeResource({ uri: `engram://documents/${hidden.id}` });
  await s.client.subscribeResource({ uri: `engram://documents/${seen.id}` });
  await s.service.update(ADMIN, { id: hidden.id, brain: "secret", content: "# Hidden\ny" });
  await s.service.update(ADMIN, { id: seen.id, brain: "default", content: "# Seen\ny" });
  assert.equal((await updates.next()).params.uri, `engram://documents/${seen.id}`);
  await s.client.ping();
  assert.equal(updates.received.length, 1);
});

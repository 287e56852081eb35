import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ResourceUpdatedNotificationSchema } from "../../../src/mcp/sdk.ts";
import { type Client } from "../../../src/mcp/sdk_client.ts";
import {
  ADMIN,
  callOk,
  collectNotifications,
  connectStdio,
  openService,
  tempDir,
} from "../../helpers.ts";

interface Doc {
  id: string;
  path: string;
}

/** The text and MIME type of a resource. */
async function read(client: Client, uri: string): Promise<{ text: string; mimeType?: string }> {
  const { contents } = await client.readResource({ uri });
  assert.equal(contents.length, 1);
  assert.equal(contents[0].uri, uri);
  return { text: (contents[0] as { text: string }).text, mimeType: contents[0].mimeType };
}

/** The JSON-RPC error of a resources/read that must fail. */
async function readError(client: Client, uri: string) {
  try {
    await client.readResource({ uri });
  } catch (err) {
    const e = err as { code: number; message: string; data?: { uri?: string } };
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error(`reading ${uri} unexpectedly succeeded`);
}

Deno.test("stdio resources: listing, templates and reading every kind of resource", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const c = s.client;
  assert.deepEqual(c.getServerCapabilities()?.resources, { subscribe: true, listChanged: false });
  const doc = await callOk<Doc>(c, "memory_remember", {
    content: "# Runbook\nRestart the queue with care.",
    path: "/memory/project/ops notes/runbook.md",
  });

  const { resources } = await c.listResources();
  assert.deepEqual(resources.map((r) => r.uri), [
    "engram://context/help",
    "engram://context/status",
    "engram://brains",
    "engram://brains/default/documents",
  ]);
  for (const r of resources) assert.ok(r.name && r.description, `${r.uri} is described`);
  const { resourceTemplates } = await c.listResourceTemplates();
  const templates = resourceTemplates.map((t) => t.uriTemplate);
  assert.ok(templates.includes("engram://context/search{?query,limit}"));
  assert.ok(templates.includes("engram://brains/{brain}/documents/{+path}"));

  const help = await read(c, "engram://context/help");
  assert.equal(help.mimeType, "text/markdown");
  assert.match(help.text, /### read tier\n\n- `memory_search`/);
  assert.match(help.text, /### admin tier \(not available in this session\)/);
  assert.match(help.text, /`daily_briefing`/);

  const status = JSON.parse((await read(c, "engram://context/status")).text);
  assert.equal(status.tier, "write");
  assert.equal(status.documents, 1);
  assert.equal(status.brains[0].slug, "default");

  const brains = JSON.parse((await read(c, "engram://brains")).text);
  assert.deepEqual(brains.items.map((b: { slug: string }) => b.slug), ["default"]);

  const listing = JSON.parse((await read(c, "engram://brains/default/documents")).text);
  assert.equal(listing.total, 1);
  assert.equal(listing.items[0].uri, `engram://documents/${doc.id}`);
  assert.equal(listing.next_cursor, undefined);

  const byId = await read(c, `engram://documents/${doc.id}`);
  assert.equal(byId.mimeType, "text/markdown");
  assert.equal(byId.text, "# Runbook\nRestart the queue with care.");
  const byPath = await read(c, listing.items[0].path_uri);
  assert.equal(
    listing.items[0].path_uri,
    "engram://brains/default/documents/memory/project/ops%20notes/runbook.md",
  );
  assert.equal(byPath.text, byId.text);

  const search = await read(c, "engram://context/search?query=queue&limit=5");
  assert.equal(search.mimeType, "application/json");
  assert.equal(JSON.parse(search.text).hits[0].document_id, doc.id);
});

Deno.test("stdio resources: unknown, forgotten or malformed resources are errors with the URI", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const doc = await callOk<Doc>(s.client, "memory_remember", { content: "# Gone soon" });
  await callOk(s.client, "memory_forget", { id: doc.id });
  for (
    const uri of [
      `engram://documents/${doc.id}`,
      "engram://documents/doc_missing",
      "engram://brains/default/documents/memory/global/missing.md",
      "engram://brains/nope/documents",
      "engram://elsewhere/thing",
      "test://nonexistent",
    ]
  ) {
    const err = await readError(s.client, uri);
    assert.equal(err.code, -32002, `${uri}: ${err.message}`);
    assert.equal(err.data?.uri, uri);
  }
  const noQuery = await readError(s.client, "engram://context/search");
  assert.equal(noQuery.code, -32602);
  assert.match(noQuery.message, /needs a query/);
  const badLimit = await readError(s.client, "engram://context/search?query=x&limit=500");
  assert.equal(badLimit.code, -32602);
  assert.match(badLimit.message, /limit must be a whole number from 1 to 100/);
});

Deno.test("stdio resources: resources/list and a brain's listing page with cursors", async () => {
  await using dir = await tempDir();
  {
    using svc = await openService(dir.path);
    for (let i = 0; i < 100; i++) {
      await svc.service.createBrain({ name: `Brain ${i}`, slug: `b${i}`, visibility: "private" });
    }
    for (let i = 0; i < 101; i++) {
      await svc.service.remember(ADMIN, { content: `# Note ${i}\nbody ${i}`, brain: "default" });
    }
  }
  await using s = await connectStdio(dir.path);
  const first = await s.client.listResources();
  assert.equal(first.resources.length, 100);
  assert.ok(first.nextCursor);
  const second = await s.client.listResources({ cursor: first.nextCursor });
  assert.equal(second.nextCursor, undefined);
  // 3 fixed resources and 101 brain listings, each exactly once.
  const uris = [...first.resources, ...second.resources].map((r) => r.uri);
  assert.equal(uris.length, 104);
  assert.equal(new Set(uris).size, 104);
  assert.ok(uris.includes("engram://brains/b99/documents"));

  const page1 = JSON.parse((await read(s.client, "engram://brains/default/documents")).text);
  assert.equal(page1.total, 101);
  assert.equal(page1.items.length, 100);
  assert.match(page1.next_uri, /^engram:\/\/brains\/default\/documents\?cursor=/);
  const page2 = JSON.parse((await read(s.client, page1.next_uri)).text);
  assert.equal(page2.items.length, 1);
  assert.equal(page2.next_uri, undefined);
  assert.equal(page2.items[0].title, "Note 100");
});

Deno.test("stdio resources: a subscribed document notifies once per change, and not after unsubscribe", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const c = s.client;
  const updates = collectNotifications(c, ResourceUpdatedNotificationSchema);
  const doc = await callOk<Doc>(c, "memory_remember", { content: "# Watched\nv1" });
  const other = await callOk<Doc>(c, "memory_remember", { content: "# Unwatched\nv1" });
  const uri = `engram://documents/${doc.id}`;
  await c.subscribeResource({ uri });

  await callOk(c, "memory_update", { id: doc.id, content: "# Watched\nv2" });
  assert.equal((await updates.next()).params.uri, uri);
  await callOk(c, "memory_update", { id: other.id, content: "# Unwatched\nv2" });
  await c.ping(); // anything sent before this reply has arrived
  assert.equal(updates.received.length, 1, "exactly one notification, for the subscribed document");

  await c.unsubscribeResource({ uri });
  await callOk(c, "memory_update", { id: doc.id, content: "# Watched\nv3" });
  await c.ping();
  assert.equal(updates.received.length, 1, "none after unsubscribe");
});

Deno.test("stdio resources: path and listing subscriptions follow a forget; other URIs are accepted", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const c = s.client;
  const updates = collectNotifications(c, ResourceUpdatedNotificationSchema);
  const doc = await callOk<Doc>(c, "memory_remember", {
    content: "# Plan\nship it",
    path: "/memory/project/plan.md",
  });
  const byPath = "engram://brains/default/documents/memory/project/plan.md";
  await c.subscribeResource({ uri: byPath });
  await c.subscribeResource({ uri: "engram://brains/default/documents" });
  await c.subscribeResource({ uri: "test://watched-resource" }); // accepted, never changes
  await callOk(c, "memory_forget", { id: doc.id });
  const got = [(await updates.next()).params.uri, (await updates.next()).params.uri].sort();
  assert.deepEqual(got, ["engram://brains/default/documents", byPath]);
  await c.ping();
  assert.equal(updates.received.length, 2);
});

Deno.test("stdio resources: a change by another process sharing the database notifies a subscriber", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const updates = collectNotifications(s.client, ResourceUpdatedNotificationSchema);
  const doc = await callOk<Doc>(s.client, "memory_remember", { content: "# Shared\nv1" });
  const uri = `engram://documents/${doc.id}`;
  await s.client.subscribeResource({ uri });
  {
    using other = await openService(dir.path); // another connection, as another process has
    await other.service.update(ADMIN, { id: doc.id, content: "# Shared\nv2 from elsewhere" });
  }
  assert.equal((await updates.next()).params.uri, uri);
  assert.equal((await read(s.client, uri)).text, "# Shared\nv2 from elsewhere");
});

Deno.test("stdio resources: every resources/read is audited by URI template, not by URI", async () => {
  await using dir = await tempDir();
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    await callOk(s.client, "memory_remember", { content: "# Secret plans\nclassified" });
    await read(s.client, "engram://context/search?query=classified");
    await read(s.client, "engram://context/help");
    await readError(s.client, "engram://documents/doc_missing");
  }
  const db = new DatabaseSync(`${dir.path}/engram.db`);
  const rows = db.prepare(
    "SELECT name, outcome, error_code, brain_id FROM audit WHERE kind = 'resource' ORDER BY rowid",
  ).all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.name, r.outcome, r.error_code]), [
    ["engram://context/search{?query,limit}", "ok", null],
    ["engram://context/help", "ok", null],
    ["engram://documents/{id}", "error", "not_found"],
  ]);
  assert.match(rows[0].brain_id as string, /^brn_/);
  assert.doesNotMatch(JSON.stringify(rows), /classified/);
});

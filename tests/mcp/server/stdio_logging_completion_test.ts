import assert from "node:assert/strict";
import { EmptyResultSchema, LoggingMessageNotificationSchema } from "../../../src/mcp/sdk.ts";
import { type Client } from "../../../src/mcp/sdk_client.ts";
import { VERSION } from "../../../src/version.ts";
import { callOk, collectNotifications, connectStdio, tempDir } from "../../helpers.ts";

/** The values of a completion, checking the result's shape. */
async function complete(
  client: Client,
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
  argument: { name: string; value: string },
  context?: Record<string, string>,
): Promise<string[]> {
  const { completion } = await client.complete({
    ref,
    argument,
    ...(context ? { context: { arguments: context } } : {}),
  });
  assert.ok(completion.values.length <= 100);
  assert.equal(completion.total, completion.values.length);
  assert.equal(completion.hasMore, false);
  return completion.values;
}

Deno.test("stdio logging: a ready notice, then records only at or above the level set, and a notice when it changes", async () => {
  await using dir = await tempDir();
  let messages: ReturnType<typeof collectLogs> | undefined;
  const collectLogs = (c: Client) => collectNotifications(c, LoggingMessageNotificationSchema);
  // Collecting from before initialize: the ready notice follows notifications/initialized at once.
  await using s = await connectStdio(dir.path, { setup: (c) => void (messages = collectLogs(c)) });
  const c = s.client;
  assert.deepEqual(c.getServerCapabilities()?.logging, {});
  const ready = (await messages!.next()).params;
  assert.equal(ready.level, "notice");
  assert.equal(ready.logger, "engram");
  assert.deepEqual(
    ready.data,
    {
      message: "session ready",
      server: "engram",
      version: VERSION,
      transport: "stdio",
      tier: "read",
    },
  );

  await callOk(c, "memory_list_brains");
  await c.ping();
  assert.equal(messages!.received.length, 1, "no level set: the ready notice only, no records");

  await c.setLoggingLevel("debug");
  const set = (await messages!.next()).params;
  assert.equal(set.level, "notice");
  assert.deepEqual(set.data, { message: "log level set to debug", level: "debug" });
  await callOk(c, "memory_list_brains");
  const first = (await messages!.next()).params;
  assert.equal(first.level, "debug");
  assert.equal(first.logger, "engram");
  assert.match((first.data as { message: string }).message, /tool memory_list_brains: ok in/);

  await c.setLoggingLevel("error");
  const before = messages!.received.length;
  await callOk(c, "memory_list_brains");
  await c.ping();
  assert.equal(
    messages!.received.length,
    before,
    "at error, neither the notice of the change nor debug records go",
  );
});

Deno.test("stdio logging: an unknown level is -32602", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path);
  await assert.rejects(
    s.client.request(
      { method: "logging/setLevel", params: { level: "banana" } },
      EmptyResultSchema,
    ),
    (err: { code: number; message: string }) =>
      err.code === -32602 && /params\.level: Invalid option/.test(err.message),
  );
});

Deno.test("stdio completion: brain slugs, paths, recent queries, titles and limits", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "admin"] });
  const c = s.client;
  assert.deepEqual(c.getServerCapabilities()?.completions, {});
  await callOk(c, "memory_create_brain", { name: "Work", slug: "work" });
  await callOk(c, "memory_remember", {
    content: "# Deploy guide\nsteps",
    path: "/memory/project/deploy.md",
  });
  await callOk(c, "memory_remember", {
    content: "# Design notes\nideas",
    path: "/memory/project/design.md",
  });
  const running = await callOk<{ id: string }>(c, "memory_remember", {
    content: "# Running\nshoes",
    path: "/memory/global/running.md",
  });
  await callOk(c, "memory_remember", {
    content: "# Work only\nx",
    path: "/memory/project/work-only.md",
    brain: "work",
  });

  const prompt = (name: string) => ({ type: "ref/prompt" as const, name });
  assert.deepEqual(await complete(c, prompt("summarize_document"), { name: "brain", value: "" }), [
    "default",
    "work",
  ]);
  assert.deepEqual(await complete(c, prompt("research_topic"), { name: "brain", value: "w" }), [
    "work",
  ]);
  assert.deepEqual(
    await complete(c, prompt("summarize_document"), { name: "path", value: "/memory/project/de" }),
    ["/memory/project/deploy.md", "/memory/project/design.md"],
  );
  assert.deepEqual(
    await complete(c, prompt("find_connections"), { name: "a", value: "/memory/project/" }, {
      brain: "work",
    }),
    ["/memory/project/work-only.md"],
    "the brain already chosen narrows the paths",
  );
  // Without a leading slash the prefix still matches, then paths containing the text follow.
  assert.deepEqual(
    await complete(c, prompt("summarize_document"), { name: "id", value: "run" }),
    ["/memory/global/running.md"],
  );

  await callOk(c, "memory_search", { query: "deploy rollback" });
  assert.deepEqual(
    await complete(c, prompt("research_topic"), { name: "topic", value: "de" }),
    ["deploy rollback", "Deploy guide", "Design notes"],
    "this session's queries first, then document titles",
  );

  const template = (uri: string) => ({ type: "ref/resource" as const, uri });
  assert.deepEqual(
    await complete(c, template("engram://brains/{brain}/documents/{+path}"), {
      name: "path",
      value: "memory/project/dep",
    }, { brain: "default" }),
    ["memory/project/deploy.md"],
  );
  assert.deepEqual(
    await complete(c, template("engram://brains/{brain}/documents/{+path}"), {
      name: "brain",
      value: "d",
    }),
    ["default"],
  );
  const ids = await complete(c, template("engram://documents/{id}"), { name: "id", value: "" });
  assert.equal(ids.length, 3, "the default brain's documents");
  assert.equal(ids[0], running.id, "most recently written first");
  assert.deepEqual(
    await complete(c, template("engram://documents/{id}"), {
      name: "id",
      value: running.id.slice(0, -2),
    }),
    [running.id],
  );
  assert.deepEqual(
    await complete(c, template("engram://context/search{?query,limit}"), {
      name: "limit",
      value: "1",
    }),
    ["10", "100"],
  );
  assert.deepEqual(
    await complete(c, template("engram://context/search{?query,limit}"), {
      name: "query",
      value: "roll",
    }),
    ["deploy rollback"],
  );

  await assert.rejects(
    c.complete({ ref: prompt("no_such_prompt"), argument: { name: "x", value: "" } }),
    (err: { code: number }) => err.code === -32602,
  );
});

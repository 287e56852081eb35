import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { callOk, connectStdio, runEngram, tempDir } from "../../helpers.ts";
import { INIT, spawnRaw } from "./_raw_stdio.ts";

Deno.test("stdio: garbage, batches and non-JSON-RPC lines are answered; the session carries on", async () => {
  await using dir = await tempDir();
  const p = spawnRaw(dir.path);
  await p.send("this is not json");
  const parse = await p.next();
  assert.equal(parse.id, null);
  assert.equal((parse.error as { code: number }).code, -32700);

  await p.send("[1, 2, 3]");
  const batch = await p.next();
  assert.equal((batch.error as { code: number }).code, -32600);
  assert.match((batch.error as { message: string }).message, /batches are not supported/);

  await p.send(JSON.stringify({ jsonrpc: "2.0", id: 9, method: 42 }));
  const invalid = await p.next();
  assert.equal(invalid.id, 9);
  assert.equal((invalid.error as { code: number }).code, -32600);

  await p.send(INIT());
  const init = await p.next();
  assert.equal(init.id, 1);
  assert.equal((init.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
  await p.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  await p.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
  assert.deepEqual(await p.next(), { jsonrpc: "2.0", id: 2, result: {} });

  const { code, rest, stderr } = await p.end();
  assert.equal(code, 0, "EOF on stdin ends the process cleanly");
  assert.deepEqual(rest, [], "nothing but replies on stdout");
  assert.match(stderr, /MCP session started: protocol 2025-11-25, client raw 1/);
});

Deno.test("stdio: an older client revision is negotiated like the SDK and logged", async () => {
  await using dir = await tempDir();
  const p = spawnRaw(dir.path);
  await p.send(INIT("2025-06-18"));
  const init = await p.next();
  assert.equal((init.result as { protocolVersion: string }).protocolVersion, "2025-06-18");
  const { code, stderr } = await p.end();
  assert.equal(code, 0);
  assert.match(stderr, /protocol 2025-06-18/);
});

Deno.test("stdio: a corrupt database file is a clear start-up error, stdout stays empty", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/engram.db`, "definitely not sqlite ".repeat(200));
  const r = await runEngram(["stdio"], { dataDir: dir.path, stdin: "" });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /database .*engram\.db is not a SQLite database or is corrupt/);
  assert.match(r.stderr, /restore a backup|--data/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
});

Deno.test("stdio: an invalid --tier is a configuration error at start-up (exit 2)", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["stdio", "--tier", "root"], { dataDir: dir.path, stdin: "" });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /invalid tier "root"; use one of read, write, admin/);
  assert.equal(r.stdout, "");
});

Deno.test("stdio: tools/list describes every tool with schemas and annotations", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "admin"] });
  const { tools } = await s.client.listTools();
  assert.equal(tools.length, 24);
  for (const tool of tools) {
    assert.ok(tool.description && tool.description.length > 20, `${tool.name} has a description`);
    assert.equal(tool.inputSchema.type, "object");
    assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an output schema`);
    const a = tool.annotations!;
    for (
      const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const
    ) {
      assert.equal(typeof a[hint], "boolean", `${tool.name} has ${hint}`);
    }
  }
  const forget = tools.find((t) => t.name === "memory_forget")!;
  assert.equal(forget.annotations?.destructiveHint, true);
  const search = tools.find((t) => t.name === "memory_search")!;
  assert.equal(search.annotations?.readOnlyHint, true);
  assert.deepEqual((search.inputSchema as { required?: string[] }).required, ["query"]);
});

Deno.test("stdio: every call is written to the audit table with client, transport, tier and outcome", async () => {
  await using dir = await tempDir();
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    await callOk(s.client, "memory_remember", { content: "# Audit me\nsecret content" });
    await s.client.callTool({ name: "memory_get", arguments: { id: "doc_nope" } });
    await s.client.callTool({ name: "memory_reindex", arguments: {} });
  }
  const db = new DatabaseSync(`${dir.path}/engram.db`);
  const rows = db.prepare(
    "SELECT client_id, transport, tier, name, outcome, error_code, args_digest FROM audit ORDER BY rowid",
  )
    .all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.name, r.outcome, r.error_code]), [
    ["memory_remember", "ok", null],
    ["memory_get", "error", "not_found"],
    ["memory_reindex", "error", "forbidden"],
  ]);
  for (const r of rows) {
    assert.equal(r.client_id, "stdio");
    assert.equal(r.transport, "stdio");
    assert.equal(r.tier, "write");
    assert.match(r.args_digest as string, /^[0-9a-f]{16}$/);
    assert.doesNotMatch(
      JSON.stringify(r),
      /secret content/,
      "the audit log holds a digest, not the content",
    );
  }
});

Deno.test("stdio: a search answers while another process holds the write lock; its audit row lands later", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await callOk(s.client, "memory_remember", { content: "# Locked\nwhile importing" });
  const other = new DatabaseSync(`${dir.path}/engram.db`);
  other.exec("BEGIN IMMEDIATE"); // another writer, e.g. a bulk import, holds the lock
  const found = await callOk<{ hits: unknown[] }>(s.client, "memory_search", {
    query: "importing",
  });
  assert.equal(found.hits.length, 1);
  other.exec("COMMIT");
  other.close();
  await s.client.close();
  const db = new DatabaseSync(`${dir.path}/engram.db`);
  const names = db.prepare("SELECT name FROM audit ORDER BY rowid").all().map((r) => r.name);
  db.close();
  assert.deepEqual(
    names,
    ["memory_remember", "memory_search"],
    "the queued audit row was written after the lock was released",
  );
});

Deno.test("stdio: starts and answers while another process holds the write lock", async () => {
  await using dir = await tempDir();
  const init = await runEngram(["brains", "list"], { dataDir: dir.path });
  assert.equal(init.code, 0, init.stderr);
  const other = new DatabaseSync(`${dir.path}/engram.db`);
  other.exec("BEGIN IMMEDIATE"); // e.g. an import batch in progress
  try {
    await using s = await connectStdio(dir.path);
    const { items } = await callOk<{ items: unknown[] }>(s.client, "memory_list_brains");
    assert.equal(items.length, 1);
  } finally {
    other.exec("COMMIT");
    other.close();
  }
});

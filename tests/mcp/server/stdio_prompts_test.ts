import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { Client } from "../../../src/mcp/sdk_client.ts";
import { callOk, connectStdio, tempDir } from "../../helpers.ts";

interface Doc {
  id: string;
  path: string;
}

/** Seeds two linked, tagged notes and returns them. */
async function seed(client: Client): Promise<{ alpha: Doc; beta: Doc }> {
  const alpha = await callOk<Doc>(client, "memory_remember", {
    content: "# Alpha project\nAlpha ships on Fridays and depends on [[Beta store]].",
    tags: ["project", "shipping"],
  });
  const beta = await callOk<Doc>(client, "memory_remember", {
    content: "# Beta store\nBeta store keeps invoices in PostgreSQL.",
    tags: ["shipping", "database"],
  });
  return { alpha, beta };
}

/** The text of the single user message of a prompt. */
async function promptText(
  client: Client,
  name: string,
  args: Record<string, string> = {},
): Promise<string> {
  const r = await client.getPrompt({ name, arguments: args });
  assert.equal(r.messages.length, 1);
  assert.equal(r.messages[0].role, "user");
  assert.ok(r.description, `${name} result has a description`);
  const content = r.messages[0].content as { type: string; text: string };
  assert.equal(content.type, "text");
  return content.text;
}

/** The JSON-RPC error code and message of a prompts/get that must fail. */
async function promptError(client: Client, name: string, args: Record<string, string> = {}) {
  try {
    await client.getPrompt({ name, arguments: args });
  } catch (err) {
    return { code: (err as { code: number }).code, message: (err as Error).message };
  }
  throw new Error(`prompt ${name} unexpectedly succeeded`);
}

Deno.test("stdio prompts: listed with descriptions and argument descriptions", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path);
  assert.equal(s.client.getServerCapabilities()?.prompts?.listChanged, false);
  const { prompts, nextCursor } = await s.client.listPrompts();
  assert.equal(nextCursor, undefined);
  assert.deepEqual(prompts.map((p) => p.name), [
    "summarize_local_context",
    "research_topic",
    "summarize_document",
    "find_connections",
    "daily_briefing",
  ]);
  for (const p of prompts) {
    assert.ok(p.description && p.description.length > 20, `${p.name} has a description`);
    for (const a of p.arguments ?? []) assert.ok(a.description, `${p.name}.${a.name} described`);
  }
  const research = prompts.find((p) => p.name === "research_topic")!;
  assert.deepEqual(research.arguments?.filter((a) => a.required).map((a) => a.name), ["topic"]);
});

Deno.test("stdio prompts: every prompt returns a user message built from brain content", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const { alpha, beta } = await seed(s.client);

  const recent = await promptText(s.client, "summarize_local_context");
  assert.match(recent, /most recently changed/);
  assert.match(recent, /Alpha ships on Fridays/);
  assert.match(recent, /invoices in PostgreSQL/);

  const focused = await promptText(s.client, "summarize_local_context", {
    query: "invoices",
    brain: "default",
  });
  assert.match(focused, /about "invoices"/);
  assert.match(focused, /Beta store keeps invoices/);

  const research = await promptText(s.client, "research_topic", { topic: "invoices" });
  assert.match(research, /Research "invoices"/);
  assert.match(research, /\/memory\/global\/beta-store\.md/);
  assert.match(research, /PostgreSQL/);

  const byId = await promptText(s.client, "summarize_document", { id: alpha.id });
  assert.match(byId, /Alpha ships on Fridays/);
  assert.match(byId, /tags: project, shipping/);
  const byPath = await promptText(s.client, "summarize_document", { path: beta.path });
  assert.match(byPath, /invoices in PostgreSQL/);
  assert.match(byPath, /Documents linking to it:\n- Alpha project/);

  const connections = await promptText(s.client, "find_connections", {
    a: alpha.path,
    b: beta.id,
  });
  assert.match(connections, /Alpha ships on Fridays/);
  assert.match(connections, /invoices in PostgreSQL/);
  assert.match(connections, /shared tags: shipping/);
  assert.match(
    connections,
    /\/memory\/global\/alpha-project\.md links to \/memory\/global\/beta-store\.md/,
  );

  const briefing = await promptText(s.client, "daily_briefing", { days: "2" });
  assert.match(briefing, /over the last 2 days/);
  assert.match(briefing, /created \/memory\/global\/alpha-project\.md \(v1\)/);
  assert.match(briefing, /Alpha ships on Fridays/);
  // Clients send unset optional arguments as empty strings: they count as absent (days = 1).
  assert.match(await promptText(s.client, "daily_briefing", { days: "" }), /the last day/);
});

Deno.test("stdio prompts: a huge document is cut to the budget with a note", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const big = await callOk<Doc>(s.client, "memory_remember", {
    content: "# Big\n" + "lorem ipsum dolor sit amet ".repeat(8000),
  });
  const text = await promptText(s.client, "summarize_document", { id: big.id });
  assert.ok(text.length <= 40_000, `message is ${text.length} characters`);
  assert.match(text, /more characters not shown; the whole document is engram:\/\/documents\//);
});

Deno.test("stdio prompts: bad or missing arguments and unknown prompts are -32602", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const { alpha } = await seed(s.client);
  const cases: [string, Record<string, string>, RegExp][] = [
    ["no_such_prompt", {}, /unknown prompt "no_such_prompt"; available: summarize_local_context/],
    ["research_topic", {}, /topic is required/],
    ["research_topic", { topic: "x", topics: "y" }, /unknown argument\(s\) topics/],
    ["summarize_document", {}, /give exactly one of id or path/],
    ["summarize_document", { id: alpha.id, path: alpha.path }, /give exactly one of id or path/],
    ["summarize_document", { id: "doc_missing" }, /no document with id or path "doc_missing"/],
    ["find_connections", { a: alpha.id }, /b is required/],
    ["find_connections", { a: alpha.id, b: alpha.path }, /a and b both name/],
    ["daily_briefing", { days: "soon" }, /days: must be a whole number of days/],
    ["daily_briefing", { days: "400" }, /days: must be at most 365/],
    ["summarize_local_context", { brain: "nope" }, /brain "nope" not found/],
  ];
  for (const [name, args, message] of cases) {
    const err = await promptError(s.client, name, args);
    assert.equal(err.code, -32602, `${name} ${JSON.stringify(args)}: ${err.message}`);
    assert.match(err.message, message);
  }
});

Deno.test("stdio prompts: every prompts/get is audited with kind prompt", async () => {
  await using dir = await tempDir();
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    const { alpha } = await seed(s.client);
    await promptText(s.client, "summarize_document", { id: alpha.id });
    await promptError(s.client, "research_topic");
  }
  const db = new DatabaseSync(`${dir.path}/engram.db`);
  const rows = db.prepare(
    "SELECT kind, name, outcome, error_code, brain_id, tier, transport, args_digest, latency_ms FROM audit WHERE kind = 'prompt' ORDER BY rowid",
  ).all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.name, r.outcome, r.error_code]), [
    ["summarize_document", "ok", null],
    ["research_topic", "error", "invalid_argument"],
  ]);
  assert.match(rows[0].brain_id as string, /^brn_/);
  for (const r of rows) {
    assert.equal(r.transport, "stdio");
    assert.equal(r.tier, "write");
    assert.match(r.args_digest as string, /^[0-9a-f]{16}$/);
    assert.equal(typeof r.latency_ms, "number");
  }
});

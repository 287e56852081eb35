/**
 * @module stdio answers an unexpected failure like HTTP does (issue 11 §3): the MCP wire carries
 * only a reference; the detail goes to stderr, the server log of the same machine.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { tempDir } from "../../helpers.ts";
import { INIT, spawnRaw } from "./_raw_stdio.ts";

Deno.test("stdio: a tool call failing inside SQLite returns a reference; stderr has the detail", async () => {
  await using dir = await tempDir();
  const p = spawnRaw(dir.path);
  await p.send(INIT());
  assert.equal((await p.next()).id, 1);
  await p.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  // A client that asked for log records must not receive the detail through them either.
  await p.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 3,
    method: "logging/setLevel",
    params: { level: "debug" },
  }));
  const notice = (await p.next()).params as { data: { message: string } };
  assert.equal(notice.data.message, "log level set to debug", "the level change is told first");
  assert.equal((await p.next()).id, 3);
  // Raw lines so every log notification can be inspected, but in a real client's order: list first.
  await p.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }));
  assert.equal((await p.next()).id, 4);
  const db = new DatabaseSync(`${dir.path}/engram.db`);
  db.exec("DROP TABLE chunks_fts");
  db.close();
  await p.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "memory_search", arguments: { query: "anything" } },
  }));
  const seen: string[] = [];
  let reply = await p.next();
  for (; reply.id !== 2; reply = await p.next()) seen.push(JSON.stringify(reply));
  const result = reply.result as { isError: boolean; content: { text: string }[] };
  assert.equal(result.isError, true);
  const ref = result.content[0].text.match(
    /^internal: unexpected error \(ref ([0-9a-f]{10})\); see the server log$/,
  )?.[1];
  assert.ok(ref, result.content[0].text);
  const { code, stderr, rest } = await p.end();
  assert.equal(code, 0);
  for (const line of [...seen, ...rest]) assert.doesNotMatch(line, /no such table|chunks_fts/);
  assert.match(stderr, new RegExp(`tool memory_search failed \\{"ref":"${ref}".*no such table`));
});

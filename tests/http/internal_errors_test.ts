/**
 * @module An unexpected failure under a running `engram serve` (issue 11 §3): the client gets
 * `internal: unexpected error (ref …); see the server log`, the server log gets the detail under
 * the same reference, and the audit row keeps code `internal`.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { callErr, callOk, tempDir } from "../helpers.ts";
import { connectHttp, createToken, mcpHeaders, spawnServe } from "./http_helpers.ts";

const CONCEALED = /^internal: unexpected error \(ref ([0-9a-f]{10})\); see the server log$/;

Deno.test("http: a database damaged under a running server: clients see a reference, the log the detail", async () => {
  await using dir = await tempDir();
  const token = await createToken(dir.path, { client: "ci", tier: "write" });
  const serve = await spawnServe(dir.path, []);
  const refs: string[] = [];
  try {
    await using client = await connectHttp(`${serve.url}/mcp`, token);
    await callOk(client, "memory_remember", { content: "# Kept\nbefore the damage" });

    // Another process breaks the schema under the server: every query of the table now fails
    // inside SQLite, which no engram check anticipates.
    damage(`${dir.path}/engram.db`, "chunks_fts");

    // A tool call: an error result whose text is the reference alone.
    const tool = await callErr(client, "memory_search", { query: "damage never searched before" });
    assert.equal(tool.code, "internal");
    assert.match(tool.text, CONCEALED);
    refs.push(tool.text.match(CONCEALED)![1]);

    // A resource read: a JSON-RPC error with the same wording.
    const read = await client.readResource({
      uri: "engram://context/search?query=another+fresh+query",
    })
      .then(() => assert.fail("resources/read succeeded"), (err: Error) => err.message);
    const readMessage = read.replace(/^MCP error -?\d+: /, "");
    assert.match(readMessage, CONCEALED);
    refs.push(readMessage.match(CONCEALED)![1]);

    // The HTTP layer itself: checking a token reads the tokens table.
    damage(`${dir.path}/engram.db`, "tokens");
    const res = await fetch(`${serve.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(token),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(res.status, 500);
    const body = await res.json();
    assert.match(body.error.message, CONCEALED);
    refs.push(body.error.message.match(CONCEALED)![1]);

    for (const text of [tool.text, readMessage, body.error.message]) {
      assert.doesNotMatch(text, /no such table|chunks_fts|tokens|sqlite|storage/i);
    }
  } finally {
    serve.child.kill("SIGTERM");
  }
  await serve.child.status;
  await serve.child.stdout.cancel();
  const stderr = await serve.stderr();
  assert.equal(new Set(refs).size, refs.length, "one reference per failure");
  for (const ref of refs) {
    const line = stderr.split("\n").find((l) => l.includes(`"ref":"${ref}"`));
    assert.ok(line, `no log line for ref ${ref} in:\n${stderr}`);
    assert.match(line, /^engram error: .* failed /);
    assert.match(line, /no such table/, "the detail is in the log");
    assert.match(line, /"stack":".*\\n\s*at /, "with its stack");
  }

  const db = new DatabaseSync(`${dir.path}/engram.db`);
  const rows = db.prepare("SELECT outcome, error_code FROM audit WHERE name = 'memory_search'")
    .all();
  db.close();
  assert.deepEqual(rows.map((r) => ({ ...r })), [{ outcome: "error", error_code: "internal" }]);
});

/** Drops `table` through a connection of its own, as another process would. */
function damage(file: string, table: string): void {
  const db = new DatabaseSync(file);
  db.exec(`DROP TABLE ${table}`);
  db.close();
}

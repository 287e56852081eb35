/** @module stdio refuses JSON-RPC ids JavaScript cannot hold exactly with -32600 and `id: null`. */
import assert from "node:assert/strict";
import { tempDir } from "../../helpers.ts";
import { INIT, spawnRaw } from "./_raw_stdio.ts";

Deno.test("stdio: an id beyond 2^53 (or not an integer) gets -32600 with id null; the session carries on", async () => {
  await using dir = await tempDir();
  const p = spawnRaw(dir.path);
  await p.send(INIT());
  assert.equal((await p.next()).id, 1);
  await p.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const bad = [
    "9007199254740993",
    "-9007199254740993",
    "1e21",
    "1e308",
    "1.5",
    "4503599627370495.5",
  ];
  for (const id of bad) {
    await p.send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    const reply = await p.next();
    assert.equal(reply.id, null, id);
    assert.equal((reply.error as { code: number }).code, -32600, id);
    assert.match(
      (reply.error as { message: string }).message,
      new RegExp(`id ${id.replace(".", "\\.")} is not`),
    );
  }
  await p.send('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}');
  assert.deepEqual(await p.next(), { jsonrpc: "2.0", id: 9007199254740991, result: {} });
  await p.send('{"jsonrpc":"2.0","id":"9007199254740993","method":"ping"}');
  assert.deepEqual(await p.next(), { jsonrpc: "2.0", id: "9007199254740993", result: {} });
  const { code, rest } = await p.end();
  assert.equal(code, 0);
  assert.deepEqual(rest, []);
});

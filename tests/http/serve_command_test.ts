import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { callOk, runEngram, tempDir } from "../helpers.ts";
import { connectHttp, createToken, spawnServe } from "./http_helpers.ts";

Deno.test("engram serve: real process with a real token; SIGTERM shuts it down cleanly", async () => {
  await using dir = await tempDir();
  const token = await createToken(dir.path, { client: "ci", tier: "write" });

  const serve = await spawnServe(dir.path, []);
  try {
    assert.equal((await fetch(`${serve.url}/healthz`).then((r) => r.text())).trim(), "ok");
    const ready = await fetch(`${serve.url}/readyz`);
    await ready.body?.cancel();
    assert.equal(ready.status, 200);
    const anon = await fetch(`${serve.url}/mcp`, { method: "POST", body: "{}" });
    await anon.body?.cancel();
    assert.equal(anon.status, 401);
    {
      await using client = await connectHttp(`${serve.url}/mcp`, token);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "memory_remember"));
      await callOk(client, "memory_remember", { content: "# Served\nover http" });
    }
  } finally {
    serve.child.kill("SIGTERM");
  }
  const status = await serve.child.status;
  await serve.child.stdout.cancel();
  const stderr = await serve.stderr();
  assert.equal(status.code, 0, stderr);
  assert.match(stderr, /engram serve stopped/);

  const db = new DatabaseSync(`${dir.path}/engram.db`);
  const rows = db.prepare(
    "SELECT client_id, transport, session_id, tier, name, outcome FROM audit WHERE name = 'memory_remember'",
  ).all();
  db.close();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].client_id, "ci");
  assert.equal(rows[0].transport, "http");
  assert.equal(rows[0].tier, "write");
  assert.ok(typeof rows[0].session_id === "string" && rows[0].session_id.length > 20);
});

Deno.test("engram serve: --insecure-no-auth serves anonymous callers at --tier on loopback", async () => {
  await using dir = await tempDir();
  const serve = await spawnServe(dir.path, ["--insecure-no-auth", "--tier", "write"]);
  try {
    await using client = await connectHttp(`${serve.url}/mcp`, "");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "memory_remember"));
  } finally {
    serve.child.kill("SIGTERM");
  }
  assert.equal((await serve.child.status).code, 0);
  await serve.child.stdout.cancel();
  assert.match(await serve.stderr(), /NO AUTH \(anonymous, tier write\)/);
});

Deno.test("engram serve: refuses --insecure-no-auth off loopback, and --tier without it", async () => {
  await using dir = await tempDir();
  const open = await runEngram(
    ["serve", "--host", "0.0.0.0", "--port", "0", "--insecure-no-auth"],
    {
      dataDir: dir.path,
    },
  );
  assert.notEqual(open.code, 0);
  assert.match(open.stderr, /--insecure-no-auth only works on a loopback address/);
  const tier = await runEngram(["serve", "--port", "0", "--tier", "admin"], { dataDir: dir.path });
  assert.notEqual(tier.code, 0);
  assert.match(tier.stderr, /--tier only applies with --insecure-no-auth/);
});

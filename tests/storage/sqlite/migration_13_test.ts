/** Migration 13: a schema-12 audit log keeps its calls, and takes operator actions beside them. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "../../../src/storage/sqlite/migrations.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { tempDir } from "../../helpers.ts";

Deno.test("migration 13: old audit rows are kept as calls; operator actions are recorded after it", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const old = new DatabaseSync(file);
  for (const sql of MIGRATIONS.slice(0, 12)) old.exec(sql);
  old.exec("PRAGMA user_version = 12");
  old.exec(`INSERT INTO audit (at, client_id, transport, session_id, tier, kind, name, brain_id,
      args_digest, outcome, error_code, latency_ms)
    VALUES ('2026-01-02T00:00:00Z', 'stdio', 'stdio', NULL, 'read', 'tool', 'memory_search', NULL,
      'abc', 'ok', NULL, 3)`);
  old.close();

  const storage = openSqliteStorage(file);
  try {
    await storage.audit.operatorAction({
      user: "alice",
      command: "mcp set",
      server: "files",
      changes: ["trust: user_added → verified"],
    });
    const calls = await Array.fromAsync(storage.audit.auditSamples("2026-01-01T00:00:00Z"));
    assert.deepEqual(calls.map((c) => c.name), ["memory_search"]);
    const actions = await Array.fromAsync(storage.audit.operatorActions("2026-01-01T00:00:00Z"));
    assert.deepEqual(actions.map((a) => [a.user, a.server, a.changes]), [
      ["alice", "files", ["trust: user_added → verified"]],
    ]);
  } finally {
    storage.close();
  }
});

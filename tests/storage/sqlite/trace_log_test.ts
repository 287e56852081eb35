import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { UpstreamTrace } from "../../../src/core/ports/trace_log.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { openStore } from "./_store.ts";

function trace(server: string, at: string, latency: number): UpstreamTrace {
  return {
    at,
    server,
    capability: "read_file",
    kind: "tool",
    latency_ms: latency,
    outcome: "ok",
    error_code: null,
    bytes_in: 1,
    bytes_out: 1,
    caller: null,
    transport: "stdio",
  };
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

Deno.test("traces: a long log is read completely and in order, of one server too", async () => {
  await using s = await openStore();
  const n = 4_500;
  for (let i = 0; i < n; i++) {
    await s.storage.traces.trace(trace(i % 2 ? "docs" : "files", "2030-01-01T00:00:00.000Z", i));
  }
  s.storage.close();
  const again = openSqliteStorage(s.file);
  try {
    const all = await collect(again.traces.traces({ since: "2029-01-01T00:00:00.000Z" }));
    assert.equal(all.length, n);
    assert.ok(all.every((t, i) => t.latency_ms === i));
    assert.ok(!("rowid" in all[0]), "the paging key is not handed out");
    const files = await collect(
      again.traces.traces({ since: "2029-01-01T00:00:00.000Z", server: "FILES" }),
    );
    assert.equal(files.length, n / 2);
    assert.ok(files.every((t, i) => t.server === "files" && t.latency_ms === 2 * i));
  } finally {
    again.close();
  }
});

Deno.test("pruneTraces: with nothing expired it returns 0 without waiting for the write lock", async () => {
  await using s = await openStore();
  await s.storage.traces.trace(trace("files", "2030-01-01T00:00:00.000Z", 1));
  s.storage.audit.flush();
  s.storage.connection.db.exec("PRAGMA busy_timeout = 50");
  const other = new DatabaseSync(s.file);
  other.exec("BEGIN IMMEDIATE");
  try {
    assert.equal(await s.storage.traces.pruneTraces("2029-01-01T00:00:00.000Z"), 0);
    await assert.rejects(
      s.storage.traces.pruneTraces("2031-01-01T00:00:00.000Z"),
      (err: Error & { code?: string }) => err.code === "busy",
      "an expired trace does take the write lock",
    );
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  assert.equal(await s.storage.traces.pruneTraces("2031-01-01T00:00:00.000Z"), 1);
});

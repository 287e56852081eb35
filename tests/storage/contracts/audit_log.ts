/**
 * @module The audit-log contract: rows given to the sink are durable once the storage is closed
 * (writes may be deferred until then), and read back oldest first from `since`. Each case closes
 * the storage and opens the same database again to read.
 */
import assert from "node:assert/strict";
import type { AuditEntry } from "../../../src/core/types.ts";
import {
  auditEntry,
  collect,
  type ContractBackend,
  EPOCH,
  rejectsWith,
  sessionOf,
  uid,
  withBrain,
} from "./backend.ts";

/** What the reader gives back of an entry. */
function sample(e: AuditEntry) {
  return {
    client_id: e.client_id,
    transport: e.transport,
    kind: e.kind,
    name: e.name,
    outcome: e.outcome,
    error_code: e.error_code,
    latency_ms: e.latency_ms,
  };
}

/** Registers the AuditSink/AuditReader cases for `backend`. */
export function auditLogContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} AuditLog: ${name}`, fn);

  test("rows are read back after close and reopen, oldest first, from `since` on the clock", async () => {
    await using f = await withBrain(backend);
    const rows = [
      auditEntry("memory_search", { transport: "http", session_id: "s1", latency_ms: 3 }),
      auditEntry("memory_get", { outcome: "error", error_code: "not_found", brain_id: f.brain.id }),
      auditEntry("engram://brains", { kind: "resource", tier: "read", latency_ms: 0 }),
    ];
    for (const row of rows) {
      await f.storage.audit.audit(row);
      f.clock.advance(60_000);
    }
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    assert.deepEqual(await collect(again.audit.auditSamples(EPOCH)), rows.map(sample));
    assert.deepEqual(
      await collect(again.audit.auditSamples(new Date(Date.parse(EPOCH) + 60_000).toISOString())),
      rows.slice(1).map(sample),
    );
    assert.deepEqual(await collect(again.audit.auditSamples(f.clock.iso())), []);
  });

  test("nothing dropped reads as zero drops", async () => {
    await using f = await withBrain(backend);
    await f.storage.audit.audit(auditEntry("memory_search"));
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    assert.deepEqual(await again.audit.auditDrops("2000-01-01T00:00:00.000Z"), {
      rows: 0,
      reasons: {},
    });
  });

  test("a row audited inside a unit of work that rolls back is still recorded", async () => {
    await using f = await withBrain(backend);
    const failed = auditEntry("memory_extract", { outcome: "error", error_code: "conflict" });
    await assert.rejects(
      f.storage.units.withTransaction(async () => {
        await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1"));
        await f.storage.audit.audit(failed);
        await rejectsWith(
          f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1")),
          "conflict",
        );
        throw new Error("the call failed");
      }),
      /the call failed/,
    );
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    assert.equal(await again.sessions.getSession("ses_1"), null, "the unit rolled back");
    assert.deepEqual(await collect(again.audit.auditSamples(EPOCH)), [sample(failed)]);
  });

  test("deleting a brain keeps its audit rows", async () => {
    await using f = await withBrain(backend);
    const row = auditEntry("memory_remember", { brain_id: f.brain.id });
    await f.storage.audit.audit(row);
    await f.storage.brains.deleteBrain(f.brain.id, { at: f.clock.iso() });
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    assert.deepEqual(await collect(again.audit.auditSamples(EPOCH)), [sample(row)]);
  });

  test("operator actions are written at once, read back with their time, and are not calls", async () => {
    await using f = await withBrain(backend);
    const first = {
      user: "alice",
      command: "mcp set",
      server: "files",
      changes: ["network: false → true"],
    };
    await f.storage.audit.operatorAction(first);
    f.clock.advance(60_000);
    await f.storage.audit.audit(auditEntry("memory_search"));
    await f.storage.audit.operatorAction({
      user: "bob",
      command: "mcp keys remove",
      server: null,
      changes: [],
    });
    // Readable before close: the command that made the change waited for its row.
    assert.deepEqual(await collect(f.storage.audit.operatorActions(EPOCH)), [
      { ...first, at: EPOCH },
      { user: "bob", command: "mcp keys remove", server: null, changes: [], at: f.clock.iso() },
    ]);
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    assert.deepEqual(
      (await collect(again.audit.auditSamples(EPOCH))).map((s) => s.name),
      ["memory_search"],
    );
    assert.deepEqual(
      (await collect(again.audit.operatorActions(f.clock.iso()))).map((a) => a.user),
      ["bob"],
    );
  });

  test("a long log is read completely, in order", async () => {
    await using f = await withBrain(backend);
    const n = 2_500;
    for (let i = 0; i < n; i++) {
      await f.storage.audit.audit(auditEntry(`tool_${i}`, { client_id: uid("c"), latency_ms: i }));
    }
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    const read = await collect(again.audit.auditSamples(EPOCH));
    assert.equal(read.length, n);
    assert.ok(read.every((s, i) => s.latency_ms === i && s.name === `tool_${i}`));
  });
}

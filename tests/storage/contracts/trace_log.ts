/**
 * @module The trace-log contract: upstream calls given to the sink are durable once the storage is
 * closed, read back oldest first (of one server when asked, its name compared without case), and
 * pruned by age.
 */
import assert from "node:assert/strict";
import type { UpstreamTrace } from "../../../src/core/ports/trace_log.ts";
import { collect, type ContractBackend, EPOCH, withBrain } from "./backend.ts";

function trace(server: string, at: string, extra: Partial<UpstreamTrace> = {}): UpstreamTrace {
  return {
    at,
    server,
    capability: "read_file",
    kind: "tool",
    latency_ms: 4.5,
    outcome: "ok",
    error_code: null,
    bytes_in: 120,
    bytes_out: 40,
    caller: "claude",
    transport: "stdio",
    ...extra,
  };
}

/** Registers the TraceSink/TraceReader cases for `backend`. */
export function traceLogContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} TraceLog: ${name}`, fn);

  test("traces are read back whole after close and reopen, oldest first, by server", async () => {
    await using f = await withBrain(backend);
    const rows = [
      trace("files", f.clock.iso()),
      trace("docs", f.clock.iso(1000), { outcome: "error", error_code: "provider_unavailable" }),
      trace("Files", f.clock.iso(2000), { kind: "list", capability: "tools/list", caller: null }),
    ];
    for (const row of rows) await f.storage.traces.trace(row);
    f.storage.close();
    await using again = await backend.open({ reuse: f.storage.location });
    assert.deepEqual(await collect(again.traces.traces({ since: EPOCH })), rows);
    assert.deepEqual(await collect(again.traces.traces({ since: EPOCH, server: "FILES" })), [
      rows[0],
      rows[2],
    ]);
    assert.deepEqual(await collect(again.traces.traces({ since: f.clock.iso(1500) })), [rows[2]]);
    assert.equal(await again.traces.pruneTraces(f.clock.iso(1500)), 2);
    assert.deepEqual(await collect(again.traces.traces({ since: EPOCH })), [rows[2]]);
  });
}

import assert from "node:assert/strict";
import { silentLogger } from "../../../src/core/logger.ts";
import {
  type CollectGarbage,
  compactWhenQuiet,
  type Timers,
} from "../../../src/mcp/server/idle_compaction.ts";
import { Client, StdioClientTransport } from "../../../src/mcp/sdk_client.ts";
import { engramCommandArgs, engramEnv, tempDir, withTimeout } from "../../helpers.ts";

/** Timers a test fires by hand: `due()` runs what is pending, as the clock reaching it would. */
function manualTimers(): Timers & { pending: number; due(): void } {
  let next = 1;
  const waiting = new Map<number, () => void>();
  return {
    set: (fn) => {
      const id = next++;
      waiting.set(id, fn);
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    clear: (id) => void waiting.delete(id as unknown as number),
    get pending() {
      return waiting.size;
    },
    due() {
      const fns = [...waiting.values()];
      waiting.clear();
      for (const fn of fns) fn();
    },
  };
}

Deno.test("idle compaction: one collection, a quiet period after the last activity, never while busy", () => {
  const timers = manualTimers();
  const runs: Parameters<CollectGarbage>[0][] = [];
  let busy = false;
  const c = compactWhenQuiet({
    busy: () => busy,
    logger: silentLogger,
    collect: (o) => void runs.push(o),
    timers,
  });
  assert.equal(timers.pending, 0, "nothing is armed before the client says anything");
  c.touch();
  c.touch();
  assert.equal(timers.pending, 1, "later activity moves the one pending collection");
  busy = true;
  timers.due();
  assert.equal(runs.length, 0, "a request in flight: wait another quiet period");
  assert.equal(timers.pending, 1);
  busy = false;
  timers.due();
  assert.deepEqual(runs, [{ type: "major", execution: "sync", flavor: "last-resort" }]);
  c.touch();
  assert.equal(timers.pending, 0, "it runs once per process");
});

Deno.test("idle compaction: stop drops a pending collection; without V8's gc nothing is armed", () => {
  const timers = manualTimers();
  let runs = 0;
  const c = compactWhenQuiet({
    busy: () => false,
    logger: silentLogger,
    collect: () => void runs++,
    timers,
  });
  c.touch();
  c.stop();
  assert.equal(timers.pending, 0);
  timers.due();
  assert.equal(runs, 0);

  const bare = manualTimers();
  const none = compactWhenQuiet({
    busy: () => false,
    logger: silentLogger,
    collect: undefined,
    timers: bare,
  });
  none.touch();
  assert.equal(bare.pending, 0);
});

Deno.test("idle compaction: engram stdio drops its start-up garbage once the client is quiet", async () => {
  await using dir = await tempDir();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: engramCommandArgs(["stdio"]),
    env: engramEnv(dir.path, { ENGRAM_LOG_LEVEL: "debug" }),
    cwd: dir.path,
    stderr: "pipe",
  });
  let stderr = "";
  const compacted = Promise.withResolvers<string>();
  transport.stderr?.on("data", (d: Uint8Array) => {
    stderr += new TextDecoder().decode(d);
    const line = stderr.split("\n").find((l) => l.includes("heap compacted after start-up"));
    if (line) compacted.resolve(line);
  });
  const client = new Client({ name: "engram-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    await client.listTools();
    const line = await withTimeout(compacted.promise, "the compaction's log line");
    const fields = JSON.parse(line.slice(line.indexOf("{"))) as { heap_mib: string; ms: number };
    const [before, after] = fields.heap_mib.split(" -> ").map(Number);
    assert.ok(after < before, `the heap shrank: ${fields.heap_mib} MiB`);
    assert.ok(fields.ms >= 0);
  } finally {
    await client.close();
  }
});

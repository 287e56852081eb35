/** CoalescedRuns: one run per key at a time, one more for asks that came meanwhile. */
import assert from "node:assert/strict";
import { CoalescedRuns } from "../../../../src/mcp/client/session/coalesced_runs.ts";

Deno.test("coalesced runs: a burst of asks during a run makes one more run, not one each", async () => {
  const runs: string[] = [];
  let release = () => {};
  const coalesced = new CoalescedRuns<string>(async (key) => {
    runs.push(key);
    if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
  });
  const first = coalesced.ask("a");
  const burst = Array.from({ length: 5 }, () => coalesced.ask("a"));
  const other = coalesced.ask("b");
  release();
  await Promise.all([first, ...burst, other]);
  assert.deepEqual(runs.sort(), ["a", "a", "b"]);
  await coalesced.ask("a");
  assert.equal(runs.filter((k) => k === "a").length, 3, "a later ask runs again");
});

Deno.test("coalesced runs: a failing run rejects its askers and does not stop later runs", async () => {
  let fail = true;
  const runs = new CoalescedRuns<string>(() =>
    fail ? Promise.reject(new Error("boom")) : Promise.resolve()
  );
  await assert.rejects(runs.ask("a"), /boom/);
  fail = false;
  await runs.ask("a");
});

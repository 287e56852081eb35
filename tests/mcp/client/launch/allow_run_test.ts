/**
 * The `--allow-run` floor (docs/operations.md#deno-permissions-by-mode): under a narrow list Deno
 * itself refuses an unlisted command, whatever engram's validation decides, and engram's own
 * allow_run rule blocks a reviewed server outside the list before anything starts.
 */
import assert from "node:assert/strict";
import { ceilingFlags, RUN_CEILING } from "../../../../src/config/permissions.ts";
import { grantedRunList, runAllowed } from "../../../../src/mcp/client/launch/allow_run.ts";
import { tempDir } from "../../../helpers.ts";
import { BWRAP } from "../launch_setup.ts";

const PROBE = new URL("../../../fixtures/upstream/allow_run_probe.ts", import.meta.url).pathname;

async function probe(runList: string[], args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", ...ceilingFlags(runList), PROBE, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("allow-run floor: with validation bypassed, Deno refuses every command off the list", async () => {
  await using dir = await tempDir();
  const script = `${dir.path}/server.sh`;
  await Deno.writeTextFile(script, `#!/bin/sh\necho ran > '${dir.path}/marker'\n`, { mode: 0o755 });
  const r = await probe(["deno", "kill"], ["bypass", "deno", "node", "bash", "/bin/sh", script]);
  assert.equal(r.results.deno, "ok", "a listed command runs");
  for (const cmd of ["node", "bash", "/bin/sh", script]) {
    assert.equal(r.results[cmd], "NotCapable", `${cmd}: ${r.results[cmd]}`);
  }
  await assert.rejects(Deno.lstat(`${dir.path}/marker`), Deno.errors.NotFound);
  assert.deepEqual(r.granted, ["deno", "kill"], "the binary's list, read back from Deno");
});

Deno.test("allow-run rule: a reviewed, signed, approved server outside the list is blocked, nothing runs", async () => {
  await using dir = await tempDir();
  const r = await probe(["deno", "kill"], ["engram", dir.path, "node", "standard"]);
  assert.equal(r.started, false);
  assert.match(
    r.message,
    /^mcp server "floor" is blocked by rule allow_run: command "node" is not in this binary's allow-run list \(deno\); use a launcher the binary ships for, or build one that includes it: deno task compile --allow-run=\.\.\.,node$/,
  );
  await assert.rejects(Deno.lstat(`${dir.path}/marker`), Deno.errors.NotFound);
});

Deno.test({
  name:
    "allow-run rule under restricted: Deno sees only bwrap, engram's rule still checks the inner command",
  ignore: !BWRAP.ok,
  async fn() {
    await using dir = await tempDir();
    const blocked = await probe(["deno", "bwrap", "kill"], [
      "engram",
      dir.path,
      "node",
      "restricted",
    ]);
    assert.match(
      blocked.message,
      /blocked by rule allow_run: command "node" is not in this binary's/,
    );
    // With node on the list the same server starts inside bubblewrap; it writes its marker
    // outside the sandbox, so the write fails and no marker appears either way.
    const ok = await probe(["node", "bwrap", "kill"], ["engram", dir.path, "node", "restricted"]);
    assert.deepEqual(ok, { started: true });
    await assert.rejects(Deno.lstat(`${dir.path}/marker`), Deno.errors.NotFound);
  },
});

Deno.test("allow-run list: this test process (run with --allow-all) may spawn every ceiling command", () => {
  assert.equal(runAllowed("deno"), true);
  assert.deepEqual(grantedRunList({ installed: (c) => c === "deno" || c === "kill" }), [
    "deno",
    "kill",
  ]);
  assert.ok(RUN_CEILING.includes("bwrap") && RUN_CEILING.includes("kill"));
});

// With perl on the list the server's environment passes Deno as the guard's arguments (and under
// restricted as bubblewrap's), so engram keeps Deno's floor itself: the same refusal either way.
for (const runList of [["deno", "kill"], ["deno", "kill", "perl"]]) {
  Deno.test(`allow-run floor (${runList.join(",")}): a loader key the server's allow_env names is still refused, and said so`, async () => {
    await using dir = await tempDir();
    const r = await probe(runList, ["engram", dir.path, "deno", "standard", "LD_PRELOAD"]);
    assert.equal(r.started, false);
    assert.equal(
      r.message,
      `mcp server "floor": "deno" was not started: Deno refuses to start a program with LD_PRELOAD in its environment unless the binary may run every program; remove LD_PRELOAD from the server's env`,
    );
  });
}

Deno.test({
  name: "allow-run floor under restricted: a loader key set inside bubblewrap is refused too",
  ignore: !BWRAP.ok,
  async fn() {
    await using dir = await tempDir();
    const r = await probe(["deno", "bwrap", "kill", "perl"], [
      "engram",
      dir.path,
      "deno",
      "restricted",
      "LD_PRELOAD",
    ]);
    assert.equal(r.started, false);
    assert.match(
      r.message,
      /^mcp server "floor": "\/\S+\/bwrap" was not started: Deno refuses to start a program with LD_PRELOAD in its environment unless the binary may run every program; remove LD_PRELOAD from the server's env$/,
    );
  },
});

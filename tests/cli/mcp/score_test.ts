/**
 * @module `engram mcp score` through the real CLI, on traces of real calls to real fixture
 * upstreams: an agent calling an exposed tool of a server that fails half its calls over
 * `engram stdio`, and resources read by compile-resource; and trace retention
 * (`mcp.trace_retention_days`), which the commands reading traces apply first.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { UpstreamTrace } from "../../../src/core/ports/trace_log.ts";
import type { CapabilityScore, ServerScore } from "../../../src/core/audit/trace_score.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { connectStdio, runEngram, tempDir } from "../../helpers.ts";
import { upstreamSetup } from "../_signed_upstreams.ts";
import { assertFails } from "../_util.ts";

function capability(server: ServerScore, kind: string, name: string): CapabilityScore {
  const c = server.capabilities.find((c) => c.kind === kind && c.capability === name);
  assert.ok(c, `${server.server} has no ${kind} ${name}: ${JSON.stringify(server.capabilities)}`);
  return c;
}

Deno.test("engram mcp score: per server and capability from real traces — a server failing half its calls scores 50%", async () => {
  await using s = await upstreamSetup([
    { name: "flaky", fixture: "failing_half" },
    { name: "docs", fixture: "well_behaved", extra: ["trust: verified"] },
  ]);
  await s.approve("flaky", { flaky: "read" });
  const started = new Date().toISOString();
  {
    await using agent = await connectStdio(s.dir);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await agent.client.callTool({ name: "mcp_flaky_flaky", arguments: {} });
      outcomes.push(r.isError === true);
    }
    assert.deepEqual(outcomes, [false, true, false, true], "calls 2 and 4 fail, as designed");
  }
  assert.equal((await s.run(["compile-resource", "docs", "fixture://text/hello"])).code, 0);
  assert.equal((await s.run(["compile-resource", "docs", "fixture://gone"])).code, 1);

  const r = await s.run(["score", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const score = JSON.parse(r.stdout) as { since: string; servers: ServerScore[] };
  assert.deepEqual(score.servers.map((x) => x.server), ["docs", "flaky"]);
  const [docs, flaky] = score.servers;

  const tool = capability(flaky, "tool", "flaky");
  assert.equal(tool.calls, 4);
  assert.equal(tool.ok, 2);
  assert.equal(tool.success_rate, 0.5);
  assert.deepEqual(tool.errors_by_kind, { tool_error: 2 });
  assert.ok(tool.p50_ms > 0 && tool.p95_ms >= tool.p50_ms, JSON.stringify(tool));
  assert.equal(tool.last_failure?.capability, "flaky");
  assert.equal(tool.last_failure?.error_code, "tool_error");
  assert.ok(tool.last_failure!.at >= started);
  // The server's totals add its listings (approve and the agent's session list its tools).
  assert.equal(flaky.errors, 2);
  assert.equal(flaky.calls, flaky.capabilities.reduce((n, c) => n + c.calls, 0));
  assert.ok(capability(flaky, "list", "tools/list").calls >= 1);

  const hello = capability(docs, "resource", "fixture://text/hello");
  assert.deepEqual([hello.calls, hello.success_rate, hello.last_failure], [1, 1, null]);
  const gone = capability(docs, "resource", "fixture://gone");
  assert.deepEqual([gone.calls, gone.success_rate, gone.errors_by_kind], [1, 0, { not_found: 1 }]);
  assert.equal(docs.last_failure?.capability, "fixture://gone");

  const text = await s.run(["score"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^\d+ upstream call\(s\), 3 error\(s\) since \S+Z\n/);
  assert.match(
    text.stdout,
    /\nflaky\s+\d+\s+\d+\.\d%\s+[\d.]+\s+[\d.]+\s+tool_error 2\s+\S+Z tool flaky \(tool_error\)\n/,
  );
  assert.match(text.stdout, /\nflaky:\n/);
  assert.match(
    text.stdout,
    /\ntool\s+flaky\s+4\s+50\.0%\s+[\d.]+\s+[\d.]+\s+tool_error 2\s+\S+Z \(tool_error\)\n/,
  );
  assert.match(
    text.stdout,
    /\nresource\s+fixture:\/\/gone\s+1\s+0\.0%\s+[\d.]+\s+[\d.]+\s+not_found 1/,
  );

  const one = JSON.parse((await s.run(["score", "flaky", "--json"])).stdout);
  assert.deepEqual(one.servers.map((x: ServerScore) => x.server), ["flaky"]);
  assert.equal(one.errors, 2);

  const future = await s.run(["score", "--since", "2999-01-01T00:00:00Z"]);
  assert.equal(future.code, 0, future.stderr);
  assert.match(
    future.stdout,
    /^no upstream calls since 2999-01-01T00:00:00Z; calls are traced when/,
  );
  assertFails(
    await s.run(["score", "--since", "last week"]),
    2,
    /--since "last week" is neither a duration \(30m, 12h, 7d\) nor a time/,
  );
});

function trace(at: string, server: string): UpstreamTrace {
  return {
    at,
    server,
    capability: "echo",
    kind: "tool",
    latency_ms: 5,
    outcome: "ok",
    error_code: null,
    bytes_in: 10,
    bytes_out: 2,
    caller: "cli",
    transport: "cli",
  };
}

function traceCount(dir: string): number {
  const db = new DatabaseSync(`${dir}/engram.db`);
  try {
    return Number(
      (db.prepare("SELECT count(*) AS n FROM upstream_traces").get() as { n: number }).n,
    );
  } finally {
    db.close();
  }
}

Deno.test("trace retention: traces older than mcp.trace_retention_days are pruned when traces are read", async () => {
  await using dir = await tempDir();
  const day = 86_400_000;
  const ago = (days: number) => new Date(Date.now() - days * day).toISOString();
  const storage = openSqliteStorage(`${dir.path}/engram.db`);
  for (const [days, server] of [[45, "old"], [20, "mid"], [1, "new"]] as const) {
    await storage.traces.trace(trace(ago(days), server));
  }
  storage.close();
  assert.equal(traceCount(dir.path), 3);

  // The default keeps 30 days.
  const r = await runEngram(["mcp", "score", "--since", "60d", "--json"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).servers.map((s: ServerScore) => s.server), ["mid", "new"]);
  assert.equal(traceCount(dir.path), 2, "the 45-day-old trace is gone from the table");

  await Deno.mkdir(`${dir.path}/config`);
  await Deno.writeTextFile(`${dir.path}/config/engram.yaml`, "mcp:\n  trace_retention_days: 7\n");
  const report = await runEngram(["mcp", "report", "--since", "60d", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(report.code, 0, report.stderr);
  assert.deepEqual(
    JSON.parse(report.stdout).upstream.servers.map((s: { server: string }) => s.server),
    ["new"],
  );
  assert.equal(traceCount(dir.path), 1);
});

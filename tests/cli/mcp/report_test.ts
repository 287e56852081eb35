import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type AuditSample, summariseAudit } from "../../../src/core/audit/audit_report.ts";
import { openDatabase } from "../../../src/storage/sqlite/database.ts";
import { callErr, callOk, connectStdio, runEngram, tempDir } from "../../helpers.ts";
import { configSetup, upstreamSetup } from "../_signed_upstreams.ts";

Deno.test("engram mcp report: calls, errors and latency per tool and client from the audit log", async () => {
  await using dir = await tempDir();
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    await callOk(s.client, "memory_remember", { content: "# Note\n\nhello" });
    await callOk(s.client, "memory_search", { query: "hello" });
    await callOk(s.client, "memory_search", { query: "note" });
    await callErr(s.client, "memory_get", { path: "/nope.md" });
  }
  const r = await runEngram(["mcp", "report", "--json"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.calls, 4);
  assert.equal(report.errors, 1);
  assert.equal(report.dropped_rows, 0);
  assert.deepEqual(report.drop_reasons, {});
  const search = report.lines.find((l: { name: string }) => l.name === "memory_search");
  assert.equal(search.calls, 2);
  assert.equal(search.client_id, "stdio");
  assert.deepEqual(search.transports, ["stdio"]);
  assert.ok(search.p50_ms >= 0 && search.p95_ms >= search.p50_ms);
  const get = report.lines.find((l: { name: string }) => l.name === "memory_get");
  assert.deepEqual(get.error_codes, { not_found: 1 });
  assert.deepEqual(report.upstream, { calls: 0, errors: 0, servers: [] });

  const text = await runEngram(["mcp", "report"], { dataDir: dir.path });
  assert.match(text.stdout, /^4 call\(s\), 1 error\(s\) since /);
  assert.doesNotMatch(text.stdout, /dropped/);
  assert.match(text.stdout, /tool\s+memory_get\s+stdio\s+stdio\s+1\s+1 \(not_found 1\)/);

  const future = await runEngram(["mcp", "report", "--since", "2999-01-01T00:00:00Z", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(JSON.parse(future.stdout).calls, 0);
  const bad = await runEngram(["mcp", "report", "--since", "yesterday"], { dataDir: dir.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since "yesterday" is neither a duration/);
});

Deno.test("engram mcp report: audit rows the server could not write are logged and reported as dropped", async () => {
  await using dir = await tempDir();
  // Another connection makes every audit insert fail for a reason other than a busy lock.
  openDatabase(`${dir.path}/engram.db`).close();
  const other = new DatabaseSync(`${dir.path}/engram.db`);
  other.exec(
    "CREATE TRIGGER audit_refuse BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit refused by test'); END",
  );
  other.close();
  let serverLog = "";
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    await callOk(s.client, "memory_remember", { content: "# Note\n\nhello" });
    await callOk(s.client, "memory_search", { query: "hello" });
    await callErr(s.client, "memory_get", { path: "/nope.md" });
    await s.client.close();
    serverLog = s.stderr();
  }
  // One line per failed batch; how the three rows fell into batches depends on timing.
  const logged = [
    ...serverLog.matchAll(/engram error: (\d+) audit row\(s\) dropped \(audit refused by test\)/g),
  ].reduce((n, m) => n + Number(m[1]), 0);
  assert.equal(logged, 3, serverLog);

  const r = await runEngram(["mcp", "report", "--json"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.calls, 0);
  assert.equal(report.dropped_rows, 3);
  assert.deepEqual(report.drop_reasons, { "audit refused by test": 3 });

  const text = await runEngram(["mcp", "report"], { dataDir: dir.path });
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /^0 call\(s\), 0 error\(s\) since \S+Z\n3 audit row\(s\) were dropped since \S+Z, so the counts above miss those calls \(3: audit refused by test\); the server log has the details\n/,
  );
  // Outside the window the drops are not counted.
  const future = await runEngram(["mcp", "report", "--since", "2999-01-01T00:00:00Z", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(JSON.parse(future.stdout).dropped_rows, 0);
});

Deno.test("engram mcp report: upstream traffic per server from the traces, beside the audit lines", async () => {
  await using s = await upstreamSetup([
    { name: "docs", fixture: "well_behaved", extra: ["trust: verified"] },
  ]);
  for (const uri of ["fixture://text/hello", "fixture://notes/a", "fixture://gone"]) {
    await s.run(["compile-resource", "docs", uri]);
  }
  const r = await s.run(["report", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.calls, 0, "no agent called engram");
  assert.equal(report.upstream.calls, 3);
  assert.equal(report.upstream.errors, 1);
  assert.equal(report.upstream.servers.length, 1);
  const docs = report.upstream.servers[0];
  assert.equal(docs.server, "docs");
  assert.deepEqual([docs.calls, docs.errors, docs.error_codes], [3, 1, { not_found: 1 }]);
  assert.ok(docs.p50_ms > 0 && docs.p95_ms >= docs.p50_ms, JSON.stringify(docs));
  assert.ok(docs.bytes_in > 0 && docs.bytes_out > 0);

  const text = await s.run(["report"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /\nupstream servers: 3 call\(s\), 1 error\(s\); per capability: engram mcp score\n\nserver\s+calls\s+errors\s+p50 ms\s+p95 ms\ndocs\s+3\s+1 \(not_found 1\)\s+[\d.]+\s+[\d.]+\n$/,
  );
  const future = await s.run(["report", "--since", "2999-01-01T00:00:00Z"]);
  assert.match(future.stdout, /\nupstream servers: 0 call\(s\), 0 error\(s\)\n$/);
});

Deno.test("audit summary: nearest-rank percentiles, busiest first", async () => {
  const samples: AuditSample[] = Array.from({ length: 20 }, (_, i) => ({
    client_id: "a",
    transport: "http",
    kind: "tool",
    name: "memory_search",
    outcome: "ok",
    error_code: null,
    latency_ms: i + 1,
  }));
  samples.push({ ...samples[0], name: "memory_get", outcome: "error", error_code: "not_found" });
  const r = await summariseAudit(samples, "2026-01-01T00:00:00.000Z");
  assert.equal(r.lines[0].name, "memory_search");
  assert.equal(r.lines[0].p50_ms, 10);
  assert.equal(r.lines[0].p95_ms, 19);
  assert.equal(r.lines[0].max_ms, 20);
  assert.equal(r.errors, 1);
});

Deno.test("engram mcp report: operator actions, with the OS user, the time, the command, server and change", async () => {
  await using s = await configSetup(
    "mcp:\n  mcp_servers:\n    - name: docs\n      transport: http\n      url: http://127.0.0.1:9/mcp\n",
    { env: { USER: "carol" } },
  );
  assert.equal((await s.run(["disable", "docs"])).code, 0);
  assert.equal((await s.run(["enable", "docs"], { USER: "", LOGNAME: "dave" })).code, 0);
  const text = await s.run(["report"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^0 call\(s\), 0 error\(s\)/, "operator actions are not calls");
  assert.match(
    text.stdout,
    /\noperator actions: 2\n {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ carol: engram mcp disable docs\n {4}enabled: true → false\n {2}\S+ dave: engram mcp enable docs\n {4}enabled: false → true\n/,
  );
  const none = await s.run(["report", "--since", "2999-01-01T00:00:00Z", "--json"]);
  assert.deepEqual(JSON.parse(none.stdout).operator_actions, []);
});

Deno.test("engram mcp report: approving and revoking are operator actions", async () => {
  await using s = await upstreamSetup([{ name: "docs", fixture: "well_behaved" }], {
    env: { USER: "erin" },
  });
  await s.approve("docs", { echo: "read" });
  assert.equal((await s.run(["approvals", "revoke", "docs", "echo"])).code, 0);
  const actions = JSON.parse((await s.run(["report", "--json"])).stdout).operator_actions;
  assert.deepEqual(
    actions.map((a: { user: string; command: string; server: string; changes: string[] }) => [
      a.user,
      a.command,
      a.server,
      a.changes,
    ]),
    [
      ["erin", "mcp approvals approve", "docs", ["approved tool echo (exposed at read)"]],
      ["erin", "mcp approvals revoke", "docs", ["revoked tool echo"]],
    ],
  );
});

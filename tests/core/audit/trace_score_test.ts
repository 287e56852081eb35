/**
 * @module Scoring traces: nearest-rank percentiles per server and capability, errors by kind, the
 * last failure by time whatever the order, and the upstream part of the audit report.
 */
import assert from "node:assert/strict";
import { summariseAudit } from "../../../src/core/audit/audit_report.ts";
import type { UpstreamTrace } from "../../../src/core/ports/trace_log.ts";
import { traceCutoff } from "../../../src/core/audit/trace_retention.ts";
import { scoreTraces } from "../../../src/core/audit/trace_score.ts";

const SINCE = "2026-01-01T00:00:00.000Z";

function t(partial: Partial<UpstreamTrace>): UpstreamTrace {
  return {
    at: "2026-01-02T00:00:00.000Z",
    server: "files",
    capability: "echo",
    kind: "tool",
    latency_ms: 1,
    outcome: "ok",
    error_code: null,
    bytes_in: 1,
    bytes_out: 1,
    caller: "cli",
    transport: "cli",
    ...partial,
  };
}

Deno.test("scoreTraces: per server and capability, nearest-rank percentiles, busiest capability first", async () => {
  const traces = [
    ...Array.from({ length: 20 }, (_, i) => t({ latency_ms: i + 1 })),
    t({ capability: "tools/list", kind: "list", latency_ms: 100 }),
    t({ server: "docs", capability: "doc://a", kind: "resource", latency_ms: 7.126 }),
  ];
  const score = await scoreTraces(traces, SINCE);
  assert.equal(score.since, SINCE);
  assert.deepEqual([score.calls, score.errors], [22, 0]);
  assert.deepEqual(score.servers.map((s) => s.server), ["docs", "files"], "servers by name");
  const files = score.servers[1];
  assert.deepEqual(files.capabilities.map((c) => `${c.kind} ${c.capability}`), [
    "tool echo",
    "list tools/list",
  ]);
  const echo = files.capabilities[0];
  assert.deepEqual([echo.calls, echo.p50_ms, echo.p95_ms, echo.max_ms], [20, 10, 19, 20]);
  assert.equal(echo.success_rate, 1);
  assert.equal(echo.last_failure, null);
  assert.deepEqual([files.calls, files.p95_ms, files.max_ms], [21, 20, 100]);
  assert.equal(score.servers[0].p50_ms, 7.13, "milliseconds to two decimals");
  assert.deepEqual([files.bytes_in, files.bytes_out], [21, 21]);
});

Deno.test("scoreTraces: errors by kind, the success rate, and the latest failure whatever the order", async () => {
  const score = await scoreTraces([
    t({ at: "2026-01-05T00:00:00.000Z", outcome: "error", error_code: "tool_error" }),
    t({ at: "2026-01-03T00:00:00.000Z", outcome: "error", error_code: "timeout" }),
    t({ at: "2026-01-04T00:00:00.000Z" }),
    t({ at: "2026-01-02T00:00:00.000Z", outcome: "error", error_code: null, capability: "add" }),
  ], SINCE);
  const files = score.servers[0];
  assert.deepEqual([files.calls, files.ok, files.errors], [4, 1, 3]);
  assert.equal(files.success_rate, 0.25);
  assert.deepEqual(files.errors_by_kind, { tool_error: 1, timeout: 1, internal: 1 });
  assert.deepEqual(files.last_failure, {
    at: "2026-01-05T00:00:00.000Z",
    kind: "tool",
    capability: "echo",
    error_code: "tool_error",
  });
  const echo = files.capabilities.find((c) => c.capability === "echo")!;
  assert.equal(echo.success_rate, 0.3333);
  const add = files.capabilities.find((c) => c.capability === "add")!;
  assert.deepEqual(add.errors_by_kind, { internal: 1 }, "a failure without a code is internal");
  assert.deepEqual(await scoreTraces([], SINCE), {
    since: SINCE,
    calls: 0,
    errors: 0,
    servers: [],
  });
});

Deno.test("the audit report carries upstream traffic per server, busiest first", async () => {
  const report = await summariseAudit([], SINCE, {
    traces: [
      t({ server: "a" }),
      t({ server: "b", outcome: "error", error_code: "not_found" }),
      t({ server: "b", latency_ms: 3 }),
    ],
  });
  assert.equal(report.calls, 0);
  assert.deepEqual(report.upstream, {
    calls: 3,
    errors: 1,
    servers: [
      {
        server: "b",
        calls: 2,
        errors: 1,
        error_codes: { not_found: 1 },
        p50_ms: 1,
        p95_ms: 3,
        bytes_in: 2,
        bytes_out: 2,
      },
      {
        server: "a",
        calls: 1,
        errors: 0,
        error_codes: {},
        p50_ms: 1,
        p95_ms: 1,
        bytes_in: 1,
        bytes_out: 1,
      },
    ],
  });
});

Deno.test("traceCutoff: the oldest time retention keeps", () => {
  assert.equal(
    traceCutoff(30, new Date("2026-03-31T12:00:00.000Z")),
    "2026-03-01T12:00:00.000Z",
  );
});

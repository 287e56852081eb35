/**
 * Upstream scores over time: the traces cut into spans and scored as `engram mcp score` scores
 * them, and drawn as inline SVG (no inline style, names escaped, every number also in a table).
 */
import assert from "node:assert/strict";
import type { UpstreamTrace } from "../../../../src/core/ports/trace_log.ts";
import { scoreChart } from "../../../../src/http/console/scores/score_chart.ts";
import { type ScoreSeries, scoreSeries } from "../../../../src/http/console/scores/score_series.ts";

const SINCE = "2030-01-01T00:00:00.000Z";
const UNTIL = "2030-01-01T14:00:00.000Z";

function trace(hour: number, extra: Partial<UpstreamTrace> = {}): UpstreamTrace {
  return {
    at: new Date(Date.parse(SINCE) + hour * 3_600_000 + 60_000).toISOString(),
    server: "files",
    capability: "read",
    kind: "tool",
    latency_ms: 100,
    outcome: "ok",
    error_code: null,
    bytes_in: 1,
    bytes_out: 1,
    caller: null,
    transport: null,
    ...extra,
  };
}

Deno.test("scoreSeries cuts the period into spans and scores each per server and capability", async () => {
  const series = await scoreSeries([
    trace(0),
    trace(0, { latency_ms: 300, outcome: "error", error_code: "timeout" }),
    trace(5, { capability: "tools/list", kind: "list", latency_ms: 20 }),
    trace(13, { server: "web", capability: "get" }),
    // Outside the period: left out.
    trace(-2),
    trace(20),
  ], { since: SINCE, until: UNTIL });
  assert.equal(series.span_ms, 3_600_000);
  assert.deepEqual(series.servers.map((s) => [s.server, s.calls, s.errors]), [
    ["files", 3, 1],
    ["web", 1, 0],
  ]);
  const files = series.servers[0];
  assert.equal(files.points.length, 14);
  assert.deepEqual(files.points[0], {
    start: SINCE,
    end: "2030-01-01T01:00:00.000Z",
    calls: 2,
    errors: 1,
    success_rate: 0.5,
    p95_ms: 300,
  });
  assert.equal(files.points[5].calls, 1);
  assert.equal(files.points[1].calls, 0);
  assert.equal(files.points[1].success_rate, 1);
  assert.deepEqual(files.capabilities.map((c) => [c.kind, c.capability, c.calls]), [
    ["tool", "read", 2],
    ["list", "tools/list", 1],
  ]);
  assert.deepEqual(files.capabilities[1].points.map((p) => p.calls), [
    0,
    0,
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  assert.equal(series.servers[1].points[13].calls, 1, "the last span takes the period's end");
});

Deno.test("scoreChart: bars for ok and failed calls, a p95 line, names escaped, no inline style", async () => {
  const series: ScoreSeries = await scoreSeries([
    trace(0),
    trace(0, { outcome: "error", error_code: "timeout", latency_ms: 500 }),
    trace(3),
  ], { since: SINCE, until: UNTIL });
  const svg = scoreChart(series.servers[0], { label: `Server <script>alert(1)</script>"x` }).value;
  assert.match(
    svg,
    /<svg class="chart" viewBox="0 0 560 140" role="img" aria-label="Server &lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;x: 3 call\(s\), 1 failed, success 66\.7%, latency p95 500 ms/,
  );
  assert.doesNotMatch(svg, /<script>/);
  assert.doesNotMatch(svg, /style=/);
  assert.equal(svg.match(/<rect class="ok"/g)?.length, 2);
  assert.equal(svg.match(/<rect class="err"/g)?.length, 1);
  assert.match(svg, /<polyline class="p95" points="[\d., ]+"\/>/);
  assert.match(
    svg,
    /<title>2030-01-01 00:00 to 2030-01-01 01:00: 2 call\(s\), 1 failed, p95 500 ms<\/title>/,
  );
  // The numbers are also a table.
  assert.match(
    svg,
    /<td>2030-01-01 00:00<\/td><td>2030-01-01 01:00<\/td><td>2<\/td><td>1<\/td><td>50%<\/td><td>500<\/td>/,
  );
});

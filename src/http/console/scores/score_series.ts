/**
 * @module Upstream scores over time (docs/console.md#upstream-servers): the traces of engram's
 * calls to each server cut into equal spans between `since` and now, each span scored as
 * `engram mcp score` scores a whole period (core's `scoreTraces`: calls, errors, success rate,
 * latency p95), per server and per capability.
 */
import { scoreTraces } from "../../../core/audit/trace_score.ts";
import type { UpstreamTrace } from "../../../core/ports/trace_log.ts";

/** How many spans a period is cut into. */
export const SPANS = 14;

/** One span of a series. */
export interface ScorePoint {
  start: string;
  end: string;
  calls: number;
  errors: number;
  /** ok / calls, 0–1; 1 for a span without calls. */
  success_rate: number;
  p95_ms: number;
}

/** A server's or a capability's series, with its totals over the whole period. */
export interface ScoreLine {
  calls: number;
  errors: number;
  success_rate: number;
  p95_ms: number;
  points: ScorePoint[];
}

/** One server's series, and each capability's (busiest first). */
export interface ServerSeries extends ScoreLine {
  server: string;
  capabilities: (ScoreLine & { kind: UpstreamTrace["kind"]; capability: string })[];
}

/** The scores over time of every server called in the period, by name. */
export interface ScoreSeries {
  since: string;
  until: string;
  span_ms: number;
  servers: ServerSeries[];
}

type Totals = { calls: number; errors: number; success_rate: number; p95_ms: number };

/** Scores `traces` (oldest first or not) over `SPANS` equal spans from `since` to `until`. */
export async function scoreSeries(
  traces: AsyncIterable<UpstreamTrace> | Iterable<UpstreamTrace>,
  o: { since: string; until: string; spans?: number },
): Promise<ScoreSeries> {
  const spans = o.spans ?? SPANS;
  const from = Date.parse(o.since);
  const to = Math.max(Date.parse(o.until), from + spans);
  const spanMs = Math.ceil((to - from) / spans);
  const cut: UpstreamTrace[][] = Array.from({ length: spans }, () => []);
  const all: UpstreamTrace[] = [];
  for await (const t of traces) {
    const at = Date.parse(t.at);
    if (!(at >= from && at <= to)) continue;
    all.push(t);
    cut[Math.min(spans - 1, Math.floor((at - from) / spanMs))].push(t);
  }
  const whole = await scoreTraces(all, o.since);
  const scored = await Promise.all(
    cut.map((ts, i) => scoreTraces(ts, new Date(from + i * spanMs).toISOString())),
  );
  const point = (i: number, s: Totals | undefined): ScorePoint => ({
    start: new Date(from + i * spanMs).toISOString(),
    end: new Date(Math.min(to, from + (i + 1) * spanMs)).toISOString(),
    calls: s?.calls ?? 0,
    errors: s?.errors ?? 0,
    success_rate: s?.success_rate ?? 1,
    p95_ms: s?.p95_ms ?? 0,
  });
  const totals = (s: Totals) => ({
    calls: s.calls,
    errors: s.errors,
    success_rate: s.success_rate,
    p95_ms: s.p95_ms,
  });
  return {
    since: new Date(from).toISOString(),
    until: new Date(to).toISOString(),
    span_ms: spanMs,
    servers: whole.servers.map((server) => ({
      server: server.server,
      ...totals(server),
      points: scored.map((s, i) => point(i, s.servers.find((x) => x.server === server.server))),
      capabilities: server.capabilities.map((c) => ({
        kind: c.kind,
        capability: c.capability,
        ...totals(c),
        points: scored.map((s, i) =>
          point(
            i,
            s.servers.find((x) => x.server === server.server)?.capabilities.find((x) =>
              x.kind === c.kind && x.capability === c.capability
            ),
          )
        ),
      })),
    })),
  };
}

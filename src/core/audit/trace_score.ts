/**
 * @module Scoring upstream servers from their traces: per server and per capability, how many
 * calls, how many succeeded, latency p50/p95, errors by kind (the error code: `tool_error` for a
 * tool's own error result, `timeout`, `cancelled`, or engram's code), and the last failure.
 */
import { nearestRank, roundMs } from "./latency_percentiles.ts";
import type { UpstreamTrace } from "../ports/trace_log.ts";

/** The most recent failed call. */
export interface LastFailure {
  at: string;
  kind: UpstreamTrace["kind"];
  capability: string;
  error_code: string;
}

/** How a set of calls went. */
export interface CallScore {
  calls: number;
  ok: number;
  errors: number;
  /** ok / calls, 0–1 (1 when there were no calls). */
  success_rate: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  /** Failed calls by error code. */
  errors_by_kind: Record<string, number>;
  last_failure: LastFailure | null;
  bytes_in: number;
  bytes_out: number;
}

/** One capability of a server: a tool, prompt, resource (by URI) or a listing (`tools/list`). */
export interface CapabilityScore extends CallScore {
  kind: UpstreamTrace["kind"];
  capability: string;
}

/** One server: its totals and each capability, busiest first. */
export interface ServerScore extends CallScore {
  server: string;
  capabilities: CapabilityScore[];
}

/** The score of every server that was called since `since`, by name. */
export interface TraceScore {
  since: string;
  calls: number;
  errors: number;
  servers: ServerScore[];
}

/** Calls being counted, with their latencies kept for the percentiles. */
class Tally {
  readonly latencies: number[] = [];
  ok = 0;
  bytesIn = 0;
  bytesOut = 0;
  readonly errorsByKind: Record<string, number> = {};
  lastFailure: LastFailure | null = null;

  add(t: UpstreamTrace): void {
    this.latencies.push(t.latency_ms);
    this.bytesIn += t.bytes_in;
    this.bytesOut += t.bytes_out;
    if (t.outcome === "ok") {
      this.ok++;
      return;
    }
    const code = t.error_code ?? "internal";
    this.errorsByKind[code] = (this.errorsByKind[code] ?? 0) + 1;
    // Traces come oldest first, but a later one is never replaced by an earlier one either way.
    if (!this.lastFailure || t.at >= this.lastFailure.at) {
      this.lastFailure = { at: t.at, kind: t.kind, capability: t.capability, error_code: code };
    }
  }

  score(): CallScore {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const calls = sorted.length;
    return {
      calls,
      ok: this.ok,
      errors: calls - this.ok,
      success_rate: calls ? Math.round((this.ok / calls) * 10_000) / 10_000 : 1,
      p50_ms: nearestRank(sorted, 0.5),
      p95_ms: nearestRank(sorted, 0.95),
      max_ms: calls ? roundMs(sorted[calls - 1]) : 0,
      errors_by_kind: this.errorsByKind,
      last_failure: this.lastFailure,
      bytes_in: this.bytesIn,
      bytes_out: this.bytesOut,
    };
  }
}

/** Aggregates traces (of any order) into per-server and per-capability scores. */
export async function scoreTraces(
  traces: AsyncIterable<UpstreamTrace> | Iterable<UpstreamTrace>,
  since: string,
): Promise<TraceScore> {
  type Capability = { kind: UpstreamTrace["kind"]; capability: string; tally: Tally };
  const servers = new Map<string, { all: Tally; capabilities: Map<string, Capability> }>();
  for await (const t of traces) {
    let s = servers.get(t.server);
    if (!s) {
      s = { all: new Tally(), capabilities: new Map() };
      servers.set(t.server, s);
    }
    s.all.add(t);
    const key = `${t.kind}\u0000${t.capability}`;
    let c = s.capabilities.get(key);
    if (!c) {
      c = { kind: t.kind, capability: t.capability, tally: new Tally() };
      s.capabilities.set(key, c);
    }
    c.tally.add(t);
  }
  const scored: ServerScore[] = [...servers.entries()].map(([server, s]) => ({
    server,
    ...s.all.score(),
    capabilities: [...s.capabilities.values()].map((c) => ({
      kind: c.kind,
      capability: c.capability,
      ...c.tally.score(),
    })).sort((a, b) =>
      b.calls - a.calls || a.kind.localeCompare(b.kind) ||
      a.capability.localeCompare(b.capability)
    ),
  })).sort((a, b) => a.server.localeCompare(b.server));
  return {
    since,
    calls: scored.reduce((n, s) => n + s.calls, 0),
    errors: scored.reduce((n, s) => n + s.errors, 0),
    servers: scored,
  };
}

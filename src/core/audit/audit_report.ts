/**
 * @module Summarising MCP traffic: the audit log (calls agents made to engram: calls, errors and
 * latency percentiles per tool and client; and the operator actions, each as recorded) and the
 * upstream traces (calls engram made to upstream servers: calls, errors and latency per server).
 */
import { nearestRank, roundMs } from "./latency_percentiles.ts";
import type { OperatorActionRecord } from "./operator_action.ts";
import type { UpstreamTrace } from "../ports/trace_log.ts";
import { scoreTraces } from "./trace_score.ts";

/** One audited call, as the report needs it. */
export interface AuditSample {
  client_id: string;
  transport: string;
  kind: string;
  name: string;
  outcome: string;
  error_code: string | null;
  latency_ms: number;
}

/** One line of the report. */
export interface AuditReportLine {
  kind: string;
  name: string;
  client_id: string;
  transports: string[];
  calls: number;
  errors: number;
  /** Error codes and how often each occurred. */
  error_codes: Record<string, number>;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

/** Audit rows engram could not write (so the calls above undercount): in total and by reason. */
export interface AuditDrops {
  rows: number;
  reasons: Record<string, number>;
}

/** Upstream traffic of one server. */
export interface UpstreamTrafficLine {
  server: string;
  calls: number;
  errors: number;
  /** Error codes (`tool_error`, `timeout`, …) and how often each occurred. */
  error_codes: Record<string, number>;
  p50_ms: number;
  p95_ms: number;
  bytes_in: number;
  bytes_out: number;
}

/** Calls engram made to upstream servers, from the traces: totals and one line per server. */
export interface UpstreamTraffic {
  calls: number;
  errors: number;
  /** Busiest first. */
  servers: UpstreamTrafficLine[];
}

/** The report: totals and one line per (kind, name, client), busiest first. */
export interface AuditReport {
  since: string;
  calls: number;
  errors: number;
  /** Audit rows dropped since `since`: calls that happened but are missing from the lines. */
  dropped_rows: number;
  /** Dropped rows by reason (a SQLite error, or the queue overflowing while the lock was held). */
  drop_reasons: Record<string, number>;
  lines: AuditReportLine[];
  /** Upstream traffic over the same period (empty when no traces were given). */
  upstream: UpstreamTraffic;
  /** What operators changed over the same period, oldest first (who, when, which command). */
  operator_actions: OperatorActionRecord[];
}

/**
 * Aggregates samples into report lines; `options.drops` says how many rows never made it,
 * `options.traces` (upstream calls over the same period) fill the upstream traffic, and
 * `options.operatorActions` are listed as they are.
 */
export async function summariseAudit(
  samples: AsyncIterable<AuditSample> | Iterable<AuditSample>,
  since: string,
  options: {
    drops?: AuditDrops;
    traces?: AsyncIterable<UpstreamTrace> | Iterable<UpstreamTrace>;
    operatorActions?: AsyncIterable<OperatorActionRecord> | Iterable<OperatorActionRecord>;
  } = {},
): Promise<AuditReport> {
  const groups = new Map<string, { line: AuditReportLine; latencies: number[] }>();
  let calls = 0;
  let errors = 0;
  for await (const s of samples) {
    const key = `${s.kind}\u0000${s.name}\u0000${s.client_id}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        line: {
          kind: s.kind,
          name: s.name,
          client_id: s.client_id,
          transports: [],
          calls: 0,
          errors: 0,
          error_codes: {},
          p50_ms: 0,
          p95_ms: 0,
          max_ms: 0,
        },
        latencies: [],
      };
      groups.set(key, g);
    }
    g.line.calls++;
    calls++;
    if (!g.line.transports.includes(s.transport)) g.line.transports.push(s.transport);
    if (s.outcome !== "ok") {
      g.line.errors++;
      errors++;
      const code = s.error_code ?? "internal";
      g.line.error_codes[code] = (g.line.error_codes[code] ?? 0) + 1;
    }
    g.latencies.push(s.latency_ms);
  }
  const lines = [...groups.values()].map(({ line, latencies }) => {
    latencies.sort((a, b) => a - b);
    return {
      ...line,
      p50_ms: nearestRank(latencies, 0.5),
      p95_ms: nearestRank(latencies, 0.95),
      max_ms: roundMs(latencies[latencies.length - 1]),
    };
  }).sort((a, b) =>
    b.calls - a.calls || a.name.localeCompare(b.name) || a.client_id.localeCompare(b.client_id)
  );
  const drops = options.drops ?? { rows: 0, reasons: {} };
  return {
    since,
    calls,
    errors,
    dropped_rows: drops.rows,
    drop_reasons: drops.reasons,
    lines,
    upstream: await upstreamTraffic(options.traces ?? [], since),
    operator_actions: await Array.fromAsync(options.operatorActions ?? []),
  };
}

/** Upstream calls per server, busiest first. */
async function upstreamTraffic(
  traces: AsyncIterable<UpstreamTrace> | Iterable<UpstreamTrace>,
  since: string,
): Promise<UpstreamTraffic> {
  const score = await scoreTraces(traces, since);
  return {
    calls: score.calls,
    errors: score.errors,
    servers: score.servers.map((s) => ({
      server: s.server,
      calls: s.calls,
      errors: s.errors,
      error_codes: s.errors_by_kind,
      p50_ms: s.p50_ms,
      p95_ms: s.p95_ms,
      bytes_in: s.bytes_in,
      bytes_out: s.bytes_out,
    })).sort((a, b) => b.calls - a.calls || a.server.localeCompare(b.server)),
  };
}

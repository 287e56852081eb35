/**
 * @module `engram mcp score`: how each upstream server has behaved, from the traces of the calls
 * engram made to it — per server and per capability: calls, success rate, latency p50/p95, errors
 * by kind, and the last failure.
 */
import { type CallScore, scoreTraces, type TraceScore } from "../../../core/audit/trace_score.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { table } from "../../output.ts";
import { withRuntime } from "../../runtime.ts";
import { pruneTracesQuietly } from "../../upstream_wiring.ts";
import { sinceTime } from "./report.ts";

/** Usage of `engram mcp score`. */
export const MCP_SCORE_SPEC: CommandSpec = {
  name: "mcp score",
  usage: "engram mcp score [SERVER] [--since 7d|ISO-TIME] [--json]",
  summary:
    "Score the upstream servers from the traces of engram's calls to them (kept mcp.trace_retention_days, default 30): per server and per capability (tool, prompt, resource, listing), the calls, success rate, latency p50/p95, errors by kind (tool_error, timeout, cancelled or engram's error code) and the last failure.",
  options: {
    since: {
      type: "string",
      help: "WHEN  a duration back from now (30m, 12h, 7d, 2w) or an RFC 3339 time; default 7d",
    },
    json: { type: "boolean", help: "print the scores as JSON" },
  },
  positionals: [0, 1],
};

/** Runs `engram mcp score`. */
export async function mcpScore(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_SCORE_SPEC, ctx.out);
  if (!args) return 0;
  const since = sinceTime(args.values.since as string | undefined, MCP_SCORE_SPEC);
  const server = args.positionals[0];
  return await withRuntime(ctx, configFlags(args.values), async (runtime, config) => {
    await pruneTracesQuietly(runtime, config);
    const score = await scoreTraces(runtime.traces.traces({ since, server }), since);
    if (args.values.json) {
      ctx.out.json(score);
      return 0;
    }
    printScore(ctx, score, server);
    return 0;
  });
}

function printScore(ctx: CommandContext, score: TraceScore, server: string | undefined): void {
  const at = `since ${score.since.slice(0, 19)}Z`;
  if (score.servers.length === 0) {
    ctx.out.line(
      `no upstream calls ${at}${
        server === undefined ? "" : ` to ${server}`
      }; calls are traced when engram reaches an upstream (engram mcp call, discover, compile-resource, or an exposed tool)`,
    );
    return;
  }
  ctx.out.line(`${score.calls} upstream call(s), ${score.errors} error(s) ${at}`);
  ctx.out.line("");
  ctx.out.line(table([
    ["server", "calls", "success", "p50 ms", "p95 ms", "errors", "last failure"],
    ...score.servers.map((s) => [s.server, ...columns(s, { named: true })]),
  ]));
  for (const s of score.servers) {
    ctx.out.line("");
    ctx.out.line(`${s.server}:`);
    ctx.out.line(table([
      ["kind", "capability", "calls", "success", "p50 ms", "p95 ms", "errors", "last failure"],
      ...s.capabilities.map((c) => [c.kind, c.capability, ...columns(c, { named: false })]),
    ]));
  }
}

/** calls, success, p50, p95, errors by kind, last failure (`named`: with what failed). */
function columns(s: CallScore, o: { named: boolean }): string[] {
  const f = s.last_failure;
  return [
    String(s.calls),
    `${(s.success_rate * 100).toFixed(1)}%`,
    String(s.p50_ms),
    String(s.p95_ms),
    s.errors ? Object.entries(s.errors_by_kind).map(([k, n]) => `${k} ${n}`).join(", ") : "0",
    f
      ? `${f.at.slice(0, 19)}Z ${o.named ? `${f.kind} ${f.capability} ` : ""}(${f.error_code})`
      : "-",
  ];
}

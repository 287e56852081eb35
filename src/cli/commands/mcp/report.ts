/**
 * @module `engram mcp report`: MCP traffic over a period — the audit log of calls agents made to
 * engram, per tool and client, the traces of calls engram made to upstream servers, per server,
 * and what operators changed (operator actions: who, when, which command and server).
 */
import { ageOrTime } from "../../../core/age_or_time.ts";
import { type AuditReport, summariseAudit } from "../../../core/audit/audit_report.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { table } from "../../output.ts";
import { withRuntime } from "../../runtime.ts";
import { pruneTracesQuietly } from "../../upstream_wiring.ts";

/** Usage of `engram mcp report`. */
export const MCP_REPORT_SPEC: CommandSpec = {
  name: "mcp report",
  usage: "engram mcp report [--since 7d|ISO-TIME] [--json]",
  summary:
    "Summarise MCP traffic: the audit log of calls to engram over every transport (calls, errors and latency p50/p95 per tool, prompt or resource and client), the upstream traffic from the traces (calls, errors and latency p50/p95 per upstream server; per capability: engram mcp score), and the operator actions (who changed which server with which command, and when).",
  options: {
    since: {
      type: "string",
      help: "WHEN  a duration back from now (30m, 12h, 7d, 2w) or an RFC 3339 time; default 7d",
    },
    json: { type: "boolean", help: "print the report as JSON" },
  },
  positionals: [0, 0],
};

/** Runs `engram mcp report`. */
export async function mcpReport(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_REPORT_SPEC, ctx.out);
  if (!args) return 0;
  const since = sinceTime(args.values.since as string | undefined);
  return await withRuntime(ctx, configFlags(args.values), async (runtime, config) => {
    await pruneTracesQuietly(runtime, config);
    const report = await summariseAudit(runtime.audit.auditSamples(since), since, {
      drops: await runtime.audit.auditDrops(since),
      traces: runtime.traces.traces({ since }),
      operatorActions: runtime.audit.operatorActions(since),
    });
    if (args.values.json) {
      ctx.out.json(report);
      return 0;
    }
    ctx.out.line(
      `${report.calls} call(s), ${report.errors} error(s) since ${report.since.slice(0, 19)}Z`,
    );
    if (report.dropped_rows) {
      const reasons = Object.entries(report.drop_reasons).map(([r, n]) => `${n}: ${r}`);
      ctx.out.line(
        `${report.dropped_rows} audit row(s) were dropped since ${
          report.since.slice(0, 19)
        }Z, so the counts above miss those calls (${
          reasons.join("; ")
        }); the server log has the details`,
      );
    }
    if (report.lines.length) {
      ctx.out.line("");
      ctx.out.line(table([
        ["kind", "name", "client", "transport", "calls", "errors", "p50 ms", "p95 ms"],
        ...report.lines.map((l) => [
          l.kind,
          l.name,
          l.client_id,
          l.transports.join(","),
          String(l.calls),
          l.errors
            ? `${l.errors} (${
              Object.entries(l.error_codes).map(([c, n]) => `${c} ${n}`).join(", ")
            })`
            : "0",
          String(l.p50_ms),
          String(l.p95_ms),
        ]),
      ]));
    }
    printUpstream(ctx, report.upstream);
    printOperatorActions(ctx, report.operator_actions);
    return 0;
  });
}

/** The upstream part of the report, per server. */
function printUpstream(ctx: CommandContext, upstream: AuditReport["upstream"]): void {
  ctx.out.line("");
  ctx.out.line(
    `upstream servers: ${upstream.calls} call(s), ${upstream.errors} error(s)${
      upstream.calls ? "; per capability: engram mcp score" : ""
    }`,
  );
  if (!upstream.servers.length) return;
  ctx.out.line("");
  ctx.out.line(table([
    ["server", "calls", "errors", "p50 ms", "p95 ms"],
    ...upstream.servers.map((s) => [
      s.server,
      String(s.calls),
      s.errors
        ? `${s.errors} (${Object.entries(s.error_codes).map(([c, n]) => `${c} ${n}`).join(", ")})`
        : "0",
      String(s.p50_ms),
      String(s.p95_ms),
    ]),
  ]));
}

/**
 * What operators changed, oldest first: when, who, the command and server, then each change.
 * Nothing when there were none (the JSON has the empty list).
 */
function printOperatorActions(ctx: CommandContext, actions: AuditReport["operator_actions"]): void {
  if (!actions.length) return;
  ctx.out.line("");
  ctx.out.line(`operator actions: ${actions.length}`);
  for (const a of actions) {
    ctx.out.line(
      `  ${a.at.slice(0, 19)}Z ${a.user}: engram ${a.command}${a.server ? ` ${a.server}` : ""}`,
    );
    for (const change of a.changes) ctx.out.line(`    ${change}`);
  }
}

/** `30m`, `12h`, `7d`, `2w` back from now, or an RFC 3339 time. */
export function sinceTime(value: string | undefined, spec: CommandSpec = MCP_REPORT_SPEC): string {
  const v = value ?? "7d";
  const at = ageOrTime(v, { now: new Date() });
  if (at === null) {
    throw usageError(spec, `--since "${v}" is neither a duration (30m, 12h, 7d) nor a time`);
  }
  return at;
}

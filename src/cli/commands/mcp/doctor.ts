/**
 * @module `engram mcp doctor [NAME]`: every check of every upstream server (or one), each PASS or
 * FAIL with a one-line fix; exits 1 when any check fails. The static checks judge the config, the
 * allowlists, the binary's allow-run list, the manifest digest and signature and the sandbox; the
 * live checks then start each server that may start — all at once, each within the request
 * timeout — and check launch, initialize, protocol version, capabilities and latency, so one sick
 * server is named while the healthy ones still pass. A remote server also gets its `auth` check:
 * where its OAuth login stands (read after the live checks, which may have learnt that it needs
 * one), with the fix (docs/upstream.md#review-servers-and-doctor).
 */
import { configFileHint } from "../../../config/config_file.ts";
import { EngramError } from "../../../core/errors.ts";
import { authCheck } from "../../../mcp/client/doctor/doctor_auth.ts";
import { liveDoctor, type LiveReport } from "../../../mcp/client/doctor/doctor_live.ts";
import type { AuthStateKind, UpstreamAuthState } from "../../../mcp/client/oauth/auth_state.ts";
import { judgeServers, type ServerView } from "../../../mcp/client/launch/server_status.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { untilInterrupted } from "../../interrupt.ts";
import { upstreamOAuth, withUpstreams } from "../../upstreams.ts";

/** Usage of `engram mcp doctor`. */
export const MCP_DOCTOR_SPEC: CommandSpec = {
  name: "mcp doctor",
  usage: "engram mcp doctor [NAME] [--json]",
  summary:
    "Check upstream servers (all, or NAME): config, reviewed allowlist, this binary's allow-run list, manifest digest and signature, sandbox, consent, and for a remote server its OAuth login (auth); then, for each server that may start, the live checks: launch, initialize, protocol version, capabilities, latency (all servers at once, each within mcp.request_timeout_ms); one that needs an OAuth login gets the login command as its fix. Each check is PASS or FAIL with a one-line fix; a disabled server's `enabled` check is OFF and does not fail the run. Exits 1 when any check fails.",
  options: {
    static: { type: "boolean", help: "only the static checks: start nothing" },
    json: { type: "boolean", help: "print every check as JSON" },
  },
  positionals: [0, 1],
};

/** Runs `engram mcp doctor`. */
export async function mcpDoctor(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_DOCTOR_SPEC, ctx.out);
  if (!args) return 0;
  const name = args.positionals[0];
  const flags = configFlags(args.values);
  return await untilInterrupted(
    ctx,
    (signal) =>
      withUpstreams(ctx, flags, { mode: "mcp-live" }, async (u) => {
        const entries = name === undefined ? u.catalog : [findEntry(u.catalog, name)];
        const views = await judgeServers(entries, u.facts!);
        const ready = views.filter((v) => v.readiness === "ready").map((v) => v.entry.config);
        const oauth = upstreamOAuth(u.runtime, u.config, ctx.env);
        const live = args.values.static ? [] : await liveDoctor(ready, {
          facts: u.facts!,
          timeoutMs: u.config.mcp.request_timeout_ms,
          maxResultBytes: u.config.mcp.max_result_bytes,
          signal,
          oauth,
        });
        // Every server was stopped before liveDoctor returned; the report would be of the stop.
        if (signal.aborted) throw new EngramError("provider_unavailable", String(signal.reason));
        // After the live checks: a connect that met a 401 has marked the server `needs login`.
        const auth = await oauth.authStates(
          views.filter((v) => !v.entry.problem).map((v) => v.entry.config),
        );
        const reports = views.map((v) => {
          const name = v.entry.config.name;
          return serverReport(v, {
            live: live.find((l) => l.server === name),
            auth: auth.find((a) => a.server === name),
          });
        });
        const failed = reports.some((r) => r.checks.some((c) => c.result === "FAIL"));
        if (args.values.json) ctx.out.json({ ok: !failed, servers: reports });
        else if (reports.length === 0) {
          ctx.out.line(
            `no upstream servers to check; add them under mcp.mcp_servers in ${
              configFileHint(u.config.configLocation)
            } or with: engram mcp import FILE`,
          );
        } else {
          for (const r of reports) printReport(ctx, r);
          const bad = reports.filter((r) => r.checks.some((c) => c.result === "FAIL"));
          ctx.out.line(
            bad.length
              ? `${bad.length} of ${reports.length} server(s) have failing checks: ${
                bad.map((r) => r.name).join(", ")
              }`
              : `all ${reports.length} server(s) pass`,
          );
        }
        return failed ? EXIT.error : EXIT.ok;
      }),
  );
}

/** One check as doctor reports it. */
interface DoctorCheck {
  rule: string;
  result: "PASS" | "FAIL" | "OFF";
  detail: string;
  fix?: string;
  /** A server that did not start: the last lines of its stderr, escaped. */
  stderr?: string[];
}

/** One server as doctor reports it. */
interface DoctorReport {
  name: string;
  transport: string;
  origin: string;
  status: ServerView["readiness"];
  /** The digest of the launch as configured now: what a reviewer signs. */
  manifest_digest?: string;
  /** Set when a config-file entry overrides an imported server of its name. */
  overrides?: string;
  /** Set when a restricted server with network can reach the host's loopback (no pasta here). */
  loopback_warning?: string;
  /** A remote server's OAuth login: no_auth, static_headers, logged_in, refresh_failing, needs_login. */
  auth_state?: AuthStateKind;
  checks: DoctorCheck[];
}

function serverReport(
  v: ServerView,
  o: { live?: LiveReport; auth?: UpstreamAuthState },
): DoctorReport {
  const { live, auth } = o;
  const c = v.entry.config;
  const login = auth ? authCheck(auth) : null;
  const liveChecks: DoctorCheck[] = (live?.checks ?? []).flatMap((l) =>
    l.status === "skip" ? [] : [{
      rule: l.check,
      result: l.status === "pass" ? "PASS" : "FAIL",
      detail: l.detail,
      ...(l.status === "fail" ? { fix: l.fix } : {}),
      ...(l.stderr ? { stderr: l.stderr } : {}),
    } as DoctorCheck]
  );
  return {
    name: c.name,
    transport: c.transport,
    origin: v.entry.origin,
    status: v.readiness,
    // No digest for a command that is not one plain executable: nothing there can be signed.
    ...(c.transport === "stdio" && !v.entry.problem && v.digest
      ? { manifest_digest: v.digest }
      : {}),
    ...(v.note ? { overrides: v.note } : {}),
    ...(v.loopback ? { loopback_warning: v.loopback } : {}),
    ...(auth ? { auth_state: auth.state } : {}),
    checks: [
      ...v.checks.map((check): DoctorCheck => ({
        rule: check.rule,
        result: check.ok ? "PASS" : check.rule === "enabled" ? "OFF" : "FAIL",
        detail: check.detail,
        ...(check.ok ? {} : { fix: check.fix }),
      })),
      ...(login
        ? [{
          rule: "auth",
          result: login.ok ? "PASS" : "FAIL",
          detail: login.detail,
          ...(login.ok ? {} : { fix: login.fix }),
        } as DoctorCheck]
        : []),
      ...liveChecks,
    ],
  };
}

function printReport(ctx: CommandContext, r: DoctorReport): void {
  ctx.out.line(`${r.name} (${r.transport}, ${r.origin}): ${r.status}`);
  if (r.overrides) ctx.out.line(`  note: ${r.overrides}`);
  if (r.loopback_warning) ctx.out.line(`  warning: ${r.loopback_warning}`);
  const width = Math.max(...r.checks.map((c) => c.rule.length));
  for (const c of r.checks) {
    ctx.out.line(`  ${c.result.padEnd(4)} ${c.rule.padEnd(width)}  ${c.detail}`);
    if (c.fix) ctx.out.line(`       ${" ".repeat(width)}  fix: ${c.fix}`);
    if (c.stderr) {
      ctx.out.line(`       ${" ".repeat(width)}  its stderr ends with:`);
      for (const line of c.stderr) ctx.out.line(`       ${" ".repeat(width)}  | ${line}`);
    }
  }
  if (r.manifest_digest) ctx.out.line(`  manifest digest of this launch: ${r.manifest_digest}`);
  ctx.out.line("");
}

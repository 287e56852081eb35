/**
 * @module `engram mcp servers | enable | disable | consent | remove`: the upstream servers engram
 * knows, whether each could start and what blocks it, and the operator's state about them.
 */
import { configFileHint } from "../../../config/config_file.ts";
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import { CONSENT_STATES } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import type { UpstreamConsent } from "../../../core/ports/upstream_store.ts";
import { judgeServers, type ServerView } from "../../../mcp/client/launch/server_status.ts";
import { changeState, findEntry } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { table } from "../../output.ts";
import { recordOperatorAction } from "../../operator_audit.ts";
import { withUpstreams } from "../../upstreams.ts";

/** Usage of `engram mcp servers`. */
export const MCP_SERVERS_SPEC: CommandSpec = {
  name: "mcp servers",
  usage: "engram mcp servers [--json]",
  summary:
    "List the upstream MCP servers (from the config file and imported ones): transport, enabled, trust, consent, whether each could start now and, when blocked, the rule that blocks it and the fix. It does not connect.",
  options: { json: { type: "boolean", help: "print as JSON" } },
  positionals: [0, 0],
};

/** Usage of `engram mcp enable`. */
export const MCP_ENABLE_SPEC: CommandSpec = {
  name: "mcp enable",
  usage: "engram mcp enable NAME",
  summary:
    "Enable an upstream server (it still starts only when every launch rule passes). Refused when the config file sets `enabled` for it: change it there.",
  options: {},
  positionals: [1, 1],
};

/** Usage of `engram mcp disable`. */
export const MCP_DISABLE_SPEC: CommandSpec = {
  name: "mcp disable",
  usage: "engram mcp disable NAME",
  summary:
    "Disable an upstream server: it is never started. Refused when the config file sets `enabled` for it.",
  options: {},
  positionals: [1, 1],
};

/** Usage of `engram mcp consent`. */
export const MCP_CONSENT_SPEC: CommandSpec = {
  name: "mcp consent",
  usage: "engram mcp consent NAME approved|denied|pending",
  summary:
    "Record your consent to connect to an upstream server after reviewing it. Refused when the config file sets `client_consent` for it.",
  options: {},
  positionals: [2, 2],
};

/** Usage of `engram mcp remove`. */
export const MCP_REMOVE_SPEC: CommandSpec = {
  name: "mcp remove",
  usage: "engram mcp remove NAME",
  summary:
    "Remove an imported (or marketplace) upstream server and its state, its OAuth login included. A server the config file defines is removed by editing the file; when its entry overrides an imported server of the same name, the imported one is removed.",
  options: {},
  positionals: [1, 1],
};

/** Runs `engram mcp servers`. */
export async function mcpServers(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_SERVERS_SPEC, ctx.out);
  if (!args) return 0;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "mcp-static" }, async (u) => {
    const views = await judgeServers(u.catalog, u.facts!);
    if (args.values.json) {
      ctx.out.json(views.map(serverJson));
      return 0;
    }
    if (views.length === 0) {
      ctx.out.line(
        `no upstream servers; add them under mcp.mcp_servers in ${
          configFileHint(u.config.configLocation)
        }, or import another client's config with: engram mcp import FILE`,
      );
      return 0;
    }
    ctx.out.line(table([
      ["name", "transport", "from", "enabled", "trust", "consent", "status", "last seen"],
      ...views.map((v) => [
        v.entry.config.name,
        v.entry.config.transport,
        v.entry.origin,
        v.entry.config.enabled ? "yes" : "no",
        v.entry.config.trust,
        v.entry.config.client_consent,
        v.readiness,
        v.entry.state?.last
          ? `${v.entry.state.last.status} ${v.entry.state.last.at.slice(0, 19)}Z`
          : "never",
      ]),
    ]));
    const blocked = views.filter((v) => v.blocked);
    const notes = views.filter((v) => v.note);
    const loopback = views.filter((v) => v.loopback);
    if (blocked.length || notes.length || loopback.length) ctx.out.line("");
    for (const v of notes) ctx.out.line(`${v.entry.config.name}: ${v.note}`);
    for (const v of loopback) ctx.out.line(`warning: ${v.loopback}`);
    for (const v of blocked) {
      ctx.out.line(
        `${v.entry.config.name}: blocked by rule ${v.blocked!.rule}: ${v.blocked!.detail}; fix: ${
          v.blocked!.fix
        }`,
      );
    }
    const disabled = views.filter((v) => v.readiness === "disabled" && !v.blocked);
    for (const v of disabled) {
      ctx.out.line(
        `${v.entry.config.name}: disabled; every launch rule passes: ${
          v.checks.find((c) => c.rule === "enabled")?.fix
        }`,
      );
    }
    return 0;
  });
}

/** Runs `engram mcp enable` and `engram mcp disable`. */
export async function mcpEnable(
  argv: string[],
  ctx: CommandContext,
  o: { enabled: boolean },
): Promise<number> {
  const { enabled } = o;
  const spec = enabled ? MCP_ENABLE_SPEC : MCP_DISABLE_SPEC;
  const args = parseOrHelp(argv, spec, ctx.out);
  if (!args) return 0;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const entry = findEntry(u.catalog, args.positionals[0]);
    const was = entry.config.enabled;
    await changeState(entry, u.runtime.upstreams, { enabled });
    await recordOperatorAction(u.runtime.audit, {
      env: ctx.env,
      command: spec.name,
      server: entry.config.name,
      changes: [`enabled: ${was} → ${enabled}`],
    });
    ctx.out.line(
      `${enabled ? "enabled" : "disabled"} upstream server ${entry.config.name}${
        enabled ? "; see whether it can start with: engram mcp servers" : ""
      }`,
    );
    return 0;
  });
}

/** Runs `engram mcp consent`. */
export async function mcpConsent(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_CONSENT_SPEC, ctx.out);
  if (!args) return 0;
  const [name, consent] = args.positionals;
  if (!(CONSENT_STATES as readonly string[]).includes(consent)) {
    throw usageError(
      MCP_CONSENT_SPEC,
      `consent must be approved, denied or pending, not "${consent}"`,
    );
  }
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const entry = findEntry(u.catalog, name);
    const was = entry.config.client_consent;
    await changeState(entry, u.runtime.upstreams, {
      client_consent: consent as UpstreamConsent,
    });
    await recordOperatorAction(u.runtime.audit, {
      env: ctx.env,
      command: MCP_CONSENT_SPEC.name,
      server: entry.config.name,
      changes: [`client_consent: ${was} → ${consent}`],
    });
    ctx.out.line(`client_consent of upstream server ${entry.config.name} is now ${consent}`);
    return 0;
  });
}

/** Runs `engram mcp remove`. */
export async function mcpRemove(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_REMOVE_SPEC, ctx.out);
  if (!args) return 0;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const entry = findEntry(u.catalog, args.positionals[0]);
    const record = (changes: string[]) =>
      recordOperatorAction(u.runtime.audit, {
        env: ctx.env,
        command: MCP_REMOVE_SPEC.name,
        server: entry.config.name,
        changes,
      });
    if (entry.overrides) {
      // The config entry stays; the import it set aside can go.
      const stored = storedKind(entry.overrides);
      const at = entry.yaml.name;
      await u.runtime.upstreams.removeUpstream(entry.config.name);
      await record([`removed the ${stored} entry, which the config file overrode`]);
      ctx.out.line(
        `removed the ${stored} entry of ${entry.config.name}; the entry in ${
          at ? `${at.file}:${at.line}` : "the config file"
        } overrode it and stays`,
      );
      return 0;
    }
    if (entry.origin === "yaml") {
      const at = entry.yaml.name;
      throw new EngramError(
        "conflict",
        `server "${entry.config.name}" is defined in the config file${
          at ? ` (${at.file}:${at.line})` : ""
        }; remove it there`,
      );
    }
    await u.runtime.upstreams.removeUpstream(entry.config.name);
    // Its OAuth login goes with it: a later server of the same name must log in anew.
    const login = await u.runtime.upstreamCredentials.removeCredentials(entry.config.name);
    await record([
      `removed the ${storedKind(entry.origin)} entry`,
      ...(login ? ["forgot its OAuth login (tokens and client registration)"] : []),
    ]);
    ctx.out.line(
      `removed upstream server ${entry.config.name} (${entry.origin})${
        login ? "; its OAuth login is forgotten" : ""
      }`,
    );
    return 0;
  });
}

/** How a stored server came: `imported` or `marketplace`. */
function storedKind(origin: string): string {
  return origin === "marketplace" ? "marketplace" : "imported";
}

/** The JSON of one server in `engram mcp servers --json`. */
function serverJson(v: ServerView) {
  const c = v.entry.config;
  return {
    name: c.name,
    transport: c.transport,
    origin: v.entry.origin,
    ...launchTarget(c),
    enabled: c.enabled,
    trust: c.trust,
    client_consent: c.client_consent,
    status: v.readiness,
    blocked: v.blocked
      ? { rule: v.blocked.rule, detail: v.blocked.detail, fix: v.blocked.fix }
      : null,
    last: v.entry.state?.last ?? null,
    imported_from: v.entry.state?.imported_from ?? null,
    defined_at: v.entry.yaml.name ?? null,
    overrides: v.note,
    loopback_warning: v.loopback,
  };
}

function launchTarget(c: McpServerConfig) {
  return c.transport === "stdio"
    ? { command: c.command, args: c.args, sandbox_profile: c.sandbox_profile, network: c.network }
    : { url: c.url };
}

/**
 * @module `engram mcp set NAME KEY=VALUE…`: edits a stored (imported or marketplace) upstream
 * server key by key (docs/upstream.md#editing-a-stored-server). A change to the launch drops its
 * signature and says so; every change is an operator action in the audit log. A server the config
 * file defines is edited in the file.
 */
import { EngramError } from "../../../core/errors.ts";
import {
  applySettings,
  parseAssignment,
  SETTABLE_KEYS,
  type SettingChange,
} from "../../../mcp/client/server_settings.ts";
import { findEntry, overrideNote } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { recordOperatorAction } from "../../operator_audit.ts";
import { withUpstreams } from "../../upstreams.ts";

/** Usage of `engram mcp set`. */
export const MCP_SET_SPEC: CommandSpec = {
  name: "mcp set",
  usage: "engram mcp set NAME KEY=VALUE... [--unset KEY]... [--json]",
  summary:
    `Edit a stored (imported or marketplace) upstream server: ${SETTABLE_KEYS.join(", ")}. ` +
    "Each value is checked like a config entry. A change to the launch drops its signature (re-sign with engram mcp sign NAME or engram mcp review NAME); every change is audit-logged as an operator action. A server defined in the config file is edited in the file.",
  options: {
    unset: {
      type: "string",
      multiple: true,
      help: "KEY  remove KEY from the entry, back to its default (env.NAME removes that variable)",
    },
    json: { type: "boolean", help: "print what changed as JSON" },
  },
  positionals: [1, 64],
};

/** Runs `engram mcp set`. */
export async function mcpSet(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_SET_SPEC, ctx.out);
  if (!args) return 0;
  const [name, ...assignments] = args.positionals;
  const changes = parseChanges(assignments, (args.values.unset as string[] | undefined) ?? []);
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const entry = findEntry(u.catalog, name);
    if (entry.origin === "yaml") {
      const at = entry.yaml.name;
      const note = overrideNote(entry);
      throw new EngramError(
        "conflict",
        `server "${entry.config.name}" is defined in ${
          at ? `${at.file}:${at.line}` : "the config file"
        }; config entries are edited in the file: set ${
          changes.map((c) => c.key).join(", ")
        } there${note ? ` (${note})` : ""}`,
      );
    }
    let result;
    try {
      result = await applySettings(entry.config.name, entry.state!.definition!, changes);
    } catch (err) {
      if (err instanceof EngramError && err.code === "invalid_argument") {
        throw usageError(MCP_SET_SPEC, err.message);
      }
      throw err;
    }
    if (result.changes.length === 0) {
      if (args.values.json) ctx.out.json({ server: entry.config.name, changes: [] });
      else ctx.out.line(`nothing changed: ${entry.config.name} already has those values`);
      return 0;
    }
    await u.runtime.upstreams.setUpstreamDefinition(entry.config.name, result.definition);
    await recordOperatorAction(u.runtime.audit, {
      env: ctx.env,
      command: MCP_SET_SPEC.name,
      server: entry.config.name,
      changes: result.changes,
    });
    const ceiling = u.config.mcp.request_timeout_ms;
    const timeout = result.definition.request_timeout_ms;
    const capped = changes.some((c) => c.key === "request_timeout_ms") &&
      typeof timeout === "number" && timeout > ceiling;
    if (args.values.json) {
      ctx.out.json({
        server: entry.config.name,
        changes: result.changes,
        signature_dropped: result.signatureDropped,
      });
    } else {
      ctx.out.line(`changed upstream server ${entry.config.name}:`);
      for (const line of result.changes) ctx.out.line(`  ${line}`);
      if (result.signatureDropped) {
        ctx.out.line(
          `signature dropped: re-sign with engram mcp sign ${entry.config.name} or engram mcp review ${entry.config.name}`,
        );
      }
    }
    if (capped) {
      ctx.out.warn(
        `note: mcp.request_timeout_ms (${ceiling} ms${
          u.config.configFile ? ` in ${u.config.configFile}` : ""
        }) bounds every server, so ${entry.config.name} waits at most that long; raise it there for ${timeout} ms to apply`,
      );
    }
    return 0;
  });
}

/** The assignments and `--unset` keys as changes; a key both set and unset is a usage error. */
function parseChanges(assignments: readonly string[], unset: readonly string[]): SettingChange[] {
  if (assignments.length === 0 && unset.length === 0) {
    throw usageError(
      MCP_SET_SPEC,
      `nothing to change: give KEY=VALUE or --unset KEY; keys: ${SETTABLE_KEYS.join(", ")}`,
    );
  }
  try {
    const set = assignments.map(parseAssignment);
    const removed = unset.map((key) => ({ key: parseAssignment(`${key}=`).key }));
    const both = removed.find((r) => set.some((s) => s.key === r.key));
    if (both) {
      throw new EngramError(
        "invalid_argument",
        `${both.key} is both set and unset; give one of them`,
      );
    }
    return [...set, ...removed];
  } catch (err) {
    if (err instanceof EngramError) throw usageError(MCP_SET_SPEC, err.message);
    throw err;
  }
}

/**
 * @module `engram mcp exposure`: every upstream capability engram knows of, at every tier — offered
 * to agents or not, and why not (not approved, changed, revoked, disabled, blocked launch,
 * collision, not exposed, below the tier, filtered by a token's tool selection) — and every
 * configured server nothing is known of yet ("never listed"). It judges from the approvals, the
 * definitions last seen and each server's launch rules; it starts nothing.
 */
import { configFileHint } from "../../../config/config_file.ts";
import { type Tier, tierAllows, TIERS } from "../../../core/types.ts";
import { exposurePlan } from "../../../mcp/client/exposure/exposure_plan.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import { judgeServers } from "../../../mcp/client/launch/server_status.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { table } from "../../output.ts";
import { withUpstreams } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";

/** Usage of `engram mcp exposure`. */
export const MCP_EXPOSURE_SPEC: CommandSpec = {
  name: "mcp exposure",
  usage: "engram mcp exposure [SERVER] [--json]",
  summary:
    "Show every upstream tool, prompt and resource template at each tier (read, write, admin): offered to agents (tools and prompts as mcp_<server>_<name>, templates under upstream://<server>/), or why not — not approved, changed, revoked, disabled, blocked launch, collision, not exposed, below its tier — and every configured server never listed yet. Starts nothing: it judges from approvals, what servers last listed and their launch rules.",
  options: { json: { type: "boolean", help: "print as JSON" } },
  positionals: [0, 1],
};

/** One capability at every tier. */
interface ExposureRow {
  server: string;
  kind: string;
  name: string;
  exposed_as: string | null;
  tiers: Record<Tier, { visible: boolean; reason: string | null }>;
  detail: string;
}

/** Runs `engram mcp exposure`. */
export async function mcpExposure(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_EXPOSURE_SPEC, ctx.out);
  if (!args) return 0;
  const only = args.positionals[0]?.toLowerCase();
  return await withUpstreams(ctx, configFlags(args.values), { mode: "mcp-static" }, async (u) => {
    const plan = await exposurePlan(u.catalog, {
      approvals: await approvalBook(u).list(),
      sightings: await u.runtime.approvals.listSightings(),
    });
    const views = await judgeServers(u.catalog, u.facts!);
    const blocked = new Map(
      views.filter((v) => v.blocked).map((v) => [v.entry.config.name, v.blocked!]),
    );
    const rows: ExposureRow[] = [];
    const everyTier = (visible: boolean, reason: string | null) =>
      Object.fromEntries(TIERS.map((t) => [t, { visible, reason }])) as ExposureRow["tiers"];
    const offered = [
      ...plan.tools.map((t) => ({ ...t, kind: "tool", name: t.tool })),
      ...plan.prompts.map((p) => ({ ...p, kind: "prompt", name: p.prompt })),
      ...plan.templates.map((t) => ({ ...t, kind: "template", name: t.template })),
    ];
    for (const t of offered) {
      const rule = blocked.get(t.server);
      rows.push({
        server: t.server,
        kind: t.kind,
        name: t.name,
        exposed_as: t.exposed,
        tiers: rule ? everyTier(false, "blocked_launch") : Object.fromEntries(
          TIERS.map((tier) => [
            tier,
            tierAllows(tier, t.tier)
              ? { visible: true, reason: null }
              : { visible: false, reason: `below_tier_${t.tier}` },
          ]),
        ) as ExposureRow["tiers"],
        detail: rule
          ? `listed from its pin, but every call is refused: blocked by rule ${rule.rule}: ${rule.detail}; fix: ${rule.fix}`
          : `offered at tier ${t.tier} and above`,
      });
    }
    for (const h of plan.hidden) {
      rows.push({
        server: h.server,
        kind: h.kind,
        name: h.name,
        exposed_as: null,
        tiers: everyTier(false, h.reason),
        detail: h.detail,
      });
    }
    // A server nothing is known of yet (never listed, nothing approved) still gets its row.
    const known = new Set(rows.map((r) => r.server.toLowerCase()));
    for (const entry of u.catalog) {
      const server = entry.config.name;
      if (known.has(server.toLowerCase())) continue;
      const rule = blocked.get(server);
      rows.push({
        server,
        kind: "server",
        name: "*",
        exposed_as: null,
        tiers: everyTier(false, "never_listed"),
        detail: `never listed: engram mcp discover ${server}${
          rule ? ` (first fix rule ${rule.rule}, which blocks its launch: ${rule.fix})` : ""
        }`,
      });
    }
    if (only !== undefined) findEntry(u.catalog, only);
    const shown = rows
      .filter((r) => only === undefined || r.server.toLowerCase() === only)
      .sort((a, b) =>
        a.server.localeCompare(b.server) || a.kind.localeCompare(b.kind) ||
        a.name.localeCompare(b.name)
      );
    if (args.values.json) {
      ctx.out.json(shown);
      return 0;
    }
    if (shown.length === 0) {
      ctx.out.line(
        `no upstream servers configured; add one with: engram mcp import FILE, or under mcp.mcp_servers in ${
          configFileHint(u.config.configLocation)
        }`,
      );
      return 0;
    }
    const cell = (r: ExposureRow, tier: Tier) =>
      r.tiers[tier].visible ? "visible" : r.tiers[tier].reason!.replaceAll("_", " ");
    ctx.out.line(table([
      ["server", "kind", "name", "exposed as", "read", "write", "admin"],
      ...shown.map((r) => [
        r.server,
        r.kind,
        r.name,
        r.exposed_as ?? "-",
        cell(r, "read"),
        cell(r, "write"),
        cell(r, "admin"),
      ]),
    ]));
    const notes = shown.filter((r) => !r.tiers.admin.visible || r.detail.startsWith("listed"));
    if (notes.length) ctx.out.line("");
    for (const r of notes) {
      ctx.out.line(`${r.server}${r.kind === "server" ? "" : ` ${r.kind} ${r.name}`}: ${r.detail}`);
    }
    return 0;
  });
}

/**
 * @module How `engram mcp approvals approve` sets what agents see of a tool: the --expose tier,
 * the --as name that settles a collision of exposed names (checked like every exposed name, and
 * refused when another tool holds it), and the hint when an approved tool is still not offered.
 */
import { EngramError } from "../../../core/errors.ts";
import type { Tier } from "../../../core/types.ts";
import type { CapabilityStatus } from "../../../mcp/client/approvals/capability_states.ts";
import { checkExposedAs } from "../../../mcp/client/exposure/exposed_names.ts";
import { exposurePlan } from "../../../mcp/client/exposure/exposure_plan.ts";
import type { CatalogEntry } from "../../../mcp/client/upstream_catalog.ts";
import { type Parsed, usageError } from "../../args.ts";
import type { UpstreamSetup } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";
import { MCP_APPROVALS_SPEC } from "./approvals_spec.ts";

/** The tier agents would see a tool at: the YAML's `expose` first, then the approval's (as the plan does). */
export function effectiveTier(
  entry: CatalogEntry,
  tool: string,
  approved?: Tier | null,
): Tier | null {
  const perTool = entry.config.expose?.tools[tool];
  if (perTool !== undefined) return perTool === "none" ? null : perTool;
  return entry.config.expose?.tier ?? approved ?? null;
}

/** Approved is not offered: says so, and the two ways to expose (the flag, or `expose:` in the file). */
export function notExposedHint(entry: CatalogEntry, tools: string[]): string {
  const server = entry.config.name;
  const which = tools.length === 1 ? tools[0] : "NAME";
  const where = entry.origin === "yaml" && entry.yaml.name
    ? `, or set expose: { tier: read } in its entry at ${entry.yaml.name.file}:${entry.yaml.name.line}`
    : "";
  return `not offered to agents until exposed (${
    tools.join(", ")
  }): engram mcp approvals approve ${server} ${which} --expose read|write|admin${where}`;
}

/** The --as NAME: one tool only, checked like every exposed name. */
export function asOf(args: Parsed, all: boolean): string | undefined {
  const raw = args.values.as as string | undefined;
  if (raw === undefined) return undefined;
  if (all) {
    throw usageError(MCP_APPROVALS_SPEC, "--as names one tool: give NAME, not --all-pending");
  }
  return checkExposedAs(raw);
}

/** Refuses --as for anything but a tool, and a name another exposed (or named) tool holds. */
export async function checkNameFree(
  u: UpstreamSetup,
  o: { entry: CatalogEntry; status: CapabilityStatus; as: string },
): Promise<void> {
  const server = o.entry.config.name;
  if (o.status.kind !== "tool") {
    throw new EngramError(
      "invalid_argument",
      `--as applies to tools only; ${o.status.kind} ${server} ${o.status.name} is not offered to agents`,
    );
  }
  const approvals = await approvalBook(u).list();
  const self = (s: string, t: string) =>
    s.toLowerCase() === server.toLowerCase() && t === o.status.name;
  const plan = await exposurePlan(u.catalog, {
    approvals: approvals.filter((a) => !(a.kind === "tool" && self(a.server, a.name))),
    sightings: await u.runtime.approvals.listSightings(),
  });
  const holder = plan.tools.find((t) => t.exposed === o.as) ??
    approvals.filter((a) => a.kind === "tool" && a.expose_as === o.as && !self(a.server, a.name))
      .map((a) => ({ server: a.server, tool: a.name }))[0];
  if (holder) {
    throw new EngramError(
      "conflict",
      `${o.as} is already the exposed name of ${holder.server} ${holder.tool}; choose another --as`,
    );
  }
}

/** The --expose tier; refused when the server's YAML sets the exposure of this tool. */
export function exposeOf(
  args: Parsed,
  entry: CatalogEntry,
  name?: string,
): Tier | null | undefined {
  const raw = args.values.expose as string | undefined;
  if (raw === undefined) return undefined;
  if (raw !== "read" && raw !== "write" && raw !== "admin" && raw !== "none") {
    throw usageError(
      MCP_APPROVALS_SPEC,
      `--expose must be read, write, admin or none, not "${raw}"`,
    );
  }
  const yaml = entry.config.expose;
  const at = entry.yaml.expose;
  if (at && (yaml?.tier !== undefined || (name !== undefined && yaml?.tools[name] !== undefined))) {
    throw new EngramError(
      "conflict",
      `the exposure of ${entry.config.name}${
        name ? ` ${name}` : ""
      } is set in ${at.file}:${at.line}, and the config file wins; change it there`,
    );
  }
  return raw === "none" ? null : raw;
}

/**
 * The collisions an approval of `tools` of `entry` takes part in — either side: a tool that did
 * not get its name, or one that now holds the name another tool had — each with the --as fix.
 */
export async function collisionNotes(
  u: UpstreamSetup,
  o: { entry: CatalogEntry; tools: readonly string[] },
): Promise<string[]> {
  const server = o.entry.config.name.toLowerCase();
  const ours = (s: string, t: string) => s.toLowerCase() === server && o.tools.includes(t);
  const plan = await exposurePlan(u.catalog, {
    approvals: await approvalBook(u).list(),
    sightings: await u.runtime.approvals.listSightings(),
  });
  return plan.hidden.filter((h) => {
    if (h.reason !== "collision") return false;
    const holder = plan.tools.find((t) => t.exposed === h.exposed);
    return ours(h.server, h.name) || (holder !== undefined && ours(holder.server, holder.tool));
  }).map((h) => `tool ${h.server} ${h.name} is not offered to agents: ${h.detail}`);
}

/**
 * @module Which approved upstream tools agents see through engram's own server, at which tier —
 * and, for every other capability, why not. Worked out from the approvals, the server entries and
 * the definitions last seen live, never by asking an upstream: listing tools must never wait on
 * one, and a server that is down keeps its tools listed (their calls fail fast).
 *
 * A tool is offered when it is approved, its server is enabled and usable, no sighting shows a
 * definition other than the approved one, and a tier is set: the YAML's `expose.tools[NAME]`
 * (`none` hides it), else the YAML's `expose.tier`, else the approval's `--expose` tier.
 */
import type {
  ApprovedKind,
  CapabilityApproval,
  CapabilitySighting,
} from "../../../core/ports/approval_store.ts";
import type { Tier } from "../../../core/types.ts";
import { exposedName, nameExposedTools } from "./exposed_names.ts";
import type { CatalogEntry } from "../upstream_catalog.ts";

/** An upstream tool offered to agents. */
export interface ExposedTool {
  /** The name agents call it by: `mcp_<server>_<tool>`, fitted to the tool-name rule. */
  exposed: string;
  server: string;
  tool: string;
  tier: Tier;
  /** The approved (pinned) definition: what agents are shown. */
  definition: Record<string, unknown>;
  pin: string;
}

/** Why a capability is not offered. */
export type HiddenReason =
  | "not_approved"
  | "changed"
  | "revoked"
  | "disabled"
  | "blocked_launch"
  | "collision"
  | "not_exposed";

/** A capability agents do not see, and why. */
export interface HiddenCapability {
  server: string;
  kind: ApprovedKind;
  name: string;
  reason: HiddenReason;
  detail: string;
  /** The name a tool would be exposed by (so a call by that name can say why it is gone). */
  exposed?: string;
}

/** What agents see, and what they do not. */
export interface ExposurePlan {
  tools: ExposedTool[];
  hidden: HiddenCapability[];
}

/** Works out the plan. `sightings` are the definitions last seen live (any process). */
export async function exposurePlan(
  catalog: readonly CatalogEntry[],
  o: {
    approvals: readonly CapabilityApproval[];
    sightings: readonly CapabilitySighting[];
  },
): Promise<ExposurePlan> {
  const { approvals, sightings } = o;
  const hidden: HiddenCapability[] = [];
  const candidates: { server: string; tool: string; tier: Tier; approval: CapabilityApproval }[] =
    [];
  const seen = new Map(sightings.map((s) => [key(s.server, s.kind, s.name), s]));
  for (const entry of catalog) {
    const server = entry.config.name;
    const mine = approvals.filter((a) => a.server.toLowerCase() === server.toLowerCase());
    for (const a of mine) {
      const hide = (reason: HiddenReason, detail: string) =>
        hidden.push({ server, kind: a.kind, name: a.name, reason, detail });
      if (a.state === "revoked") {
        hide("revoked", `revoked at ${a.revoked_at}`);
        continue;
      }
      const sighting = seen.get(key(server, a.kind, a.name));
      if (sighting && sighting.hash !== a.pin) {
        hide(
          "changed",
          `the server listed another definition at ${sighting.last_seen_at}; review it with: engram mcp approvals diff ${server} ${a.name}`,
        );
        continue;
      }
      if (entry.problem) {
        hide("blocked_launch", entry.problem);
        continue;
      }
      if (!entry.config.enabled) {
        hide("disabled", `server ${server} is disabled`);
        continue;
      }
      if (entry.config.client_consent !== "approved") {
        hide(
          "blocked_launch",
          `client_consent of ${server} is ${entry.config.client_consent}; approve it with: engram mcp consent ${server} approved`,
        );
        continue;
      }
      if (a.kind !== "tool") {
        hide(
          "not_exposed",
          "only tools are offered to agents; prompts and templates are for the operator",
        );
        continue;
      }
      const tier = tierOf(entry, a);
      if (tier === null) {
        hide(
          "not_exposed",
          `approved but not exposed; offer it with: engram mcp approvals approve ${server} ${a.name} --expose read`,
        );
        continue;
      }
      candidates.push({ server, tool: a.name, tier, approval: a });
    }
    const approved = new Set(mine.map((a) => key(server, a.kind, a.name)));
    for (const s of sightings) {
      if (s.server.toLowerCase() !== server.toLowerCase()) continue;
      if (approved.has(key(server, s.kind, s.name))) continue;
      hidden.push({
        server,
        kind: s.kind,
        name: s.name,
        reason: "not_approved",
        detail: `pending review; approve it with: engram mcp approvals approve ${server} ${s.name}`,
      });
    }
  }
  for (const h of hidden) {
    if (h.kind === "tool") h.exposed = await exposedName(h.server, h.name);
  }
  const { named, collisions } = await nameExposedTools(candidates);
  for (const c of collisions) {
    hidden.push({
      server: c.item.server,
      kind: "tool",
      name: c.item.tool,
      reason: "collision",
      detail: `its exposed name ${c.exposed} is taken by ${c.taken_by.server} ${c.taken_by.tool}`,
      exposed: c.exposed,
    });
  }
  return {
    tools: named.map(({ exposed, item }) => ({
      exposed,
      server: item.server,
      tool: item.tool,
      tier: item.tier,
      definition: item.approval.definition,
      pin: item.approval.pin,
    })),
    hidden,
  };
}

/** The exposure tier of an approved tool: the YAML first, then the approval. */
function tierOf(entry: CatalogEntry, a: CapabilityApproval): Tier | null {
  const yaml = entry.config.expose;
  const perTool = yaml?.tools[a.name];
  if (perTool !== undefined) return perTool === "none" ? null : perTool;
  return yaml?.tier ?? a.expose_tier;
}

function key(server: string, kind: string, name: string): string {
  return `${server.toLowerCase()}\u0000${kind}\u0000${name}`;
}

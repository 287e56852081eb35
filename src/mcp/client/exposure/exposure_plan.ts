/**
 * @module Which approved upstream capabilities agents see through engram's own server, at which
 * tier — and, for every other capability, why not. Worked out from the approvals, the server
 * entries and the definitions last seen live, never by asking an upstream: listing must never wait
 * on one, and a server that is down keeps its capabilities listed (their calls fail fast).
 *
 * A tool, prompt or resource template is offered when it is approved, its server is enabled and
 * usable, no sighting shows a definition other than the approved one, and a tier is set: for a
 * tool the YAML's `expose.tools[NAME]` (`none` hides it), else the YAML's `expose.tier`, else the
 * approval's `--expose` tier. Tools and prompts are named `mcp_<server>_<name>` (each kind its
 * own namespace); a template's URIs are the upstream's behind `upstream://<server>/`
 * (docs/upstream.md#exposure).
 */
import type {
  ApprovedKind,
  CapabilityApproval,
  CapabilitySighting,
} from "../../../core/ports/approval_store.ts";
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import type { Tier } from "../../../core/types.ts";
import { exposedName, nameExposedTools } from "./exposed_names.ts";
import type { CatalogEntry } from "../upstream_catalog.ts";

/** The scheme of exposed resource templates: `upstream://<server>/<the upstream's URI>`. */
export const UPSTREAM_URI_PREFIX = "upstream://";

/** The exposed URI (or URI template) of an upstream's `uri` on `server`. */
export function exposedUri(server: string, uri: string): string {
  return `${UPSTREAM_URI_PREFIX}${server}/${uri}`;
}

/** What every offered capability carries. */
interface Offered {
  server: string;
  tier: Tier;
  /** The approved (pinned) definition: what agents are shown. */
  definition: Record<string, unknown>;
  pin: string;
  /** The server's trust level, told to agents with every result. */
  trust: McpServerConfig["trust"];
}

/** An upstream tool offered to agents. */
export interface ExposedTool extends Offered {
  /** The name agents call it by: `mcp_<server>_<tool>`, fitted to the tool-name rule. */
  exposed: string;
  tool: string;
}

/** An upstream prompt offered to agents. */
export interface ExposedPrompt extends Offered {
  /** The name agents get it by: `mcp_<server>_<prompt>`, fitted like a tool name. */
  exposed: string;
  prompt: string;
}

/** An upstream resource template offered to agents. */
export interface ExposedTemplate extends Offered {
  /** The URI template agents read by: `upstream://<server>/<uriTemplate>`. */
  exposed: string;
  /** The template's name. */
  template: string;
  /** The upstream's own URI template. */
  uriTemplate: string;
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
  /** The name a tool or prompt would be exposed by (so a call by that name can say why it is gone). */
  exposed?: string;
}

/** What agents see, and what they do not. */
export interface ExposurePlan {
  tools: ExposedTool[];
  prompts: ExposedPrompt[];
  templates: ExposedTemplate[];
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
  const candidates: Candidate[] = [];
  const seen = new Map(sightings.map((s) => [key(s.server, s.kind, s.name), s]));
  for (const entry of catalog) {
    const server = entry.config.name;
    const mine = approvals.filter((a) => a.server.toLowerCase() === server.toLowerCase());
    for (const a of mine) {
      const hide = (reason: HiddenReason, detail: string) =>
        hidden.push({
          server,
          kind: a.kind,
          name: a.name,
          reason,
          detail,
          ...(a.expose_as ? { exposed: a.expose_as } : {}),
        });
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
      const tier = tierOf(entry, a);
      if (tier === null) {
        const kind = a.kind === "tool" ? "" : ` --kind ${a.kind}`;
        hide(
          "not_exposed",
          `approved but not exposed; offer it with: engram mcp approvals approve ${server} ${a.name}${kind} --expose read`,
        );
        continue;
      }
      candidates.push({
        server,
        tool: a.name,
        as: a.kind === "tool" ? a.expose_as : null,
        tier,
        approval: a,
        trust: entry.config.trust,
      });
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
    if (h.kind !== "template") h.exposed ??= await exposedName(h.server, h.name);
  }
  const offered = (c: Candidate) => ({
    server: c.server,
    tier: c.tier,
    definition: c.approval.definition,
    pin: c.approval.pin,
    trust: c.trust,
  });
  const named = async (kind: "tool" | "prompt") => {
    const out = await nameExposedTools(candidates.filter((c) => c.approval.kind === kind));
    for (const c of out.collisions) {
      hidden.push({
        server: c.item.server,
        kind,
        name: c.item.tool,
        reason: "collision",
        detail: `its exposed name ${c.exposed} is taken by ${c.taken_by.server} ${c.taken_by.tool}${
          kind === "tool"
            ? `; expose it under another name with: engram mcp approvals approve ${c.item.server} ${c.item.tool} --as mcp_NEW_NAME`
            : ""
        }`,
        exposed: c.exposed,
      });
    }
    return out.named;
  };
  const tools = (await named("tool")).map(({ exposed, item }) => ({
    ...offered(item),
    exposed,
    tool: item.tool,
  }));
  const prompts = (await named("prompt")).map(({ exposed, item }) => ({
    ...offered(item),
    exposed,
    prompt: item.tool,
  }));
  const templates: ExposedTemplate[] = [];
  for (const c of candidates.filter((c) => c.approval.kind === "template")) {
    const uriTemplate = String(c.approval.definition.uriTemplate ?? "");
    const exposed = exposedUri(c.server, uriTemplate);
    const holder = templates.find((t) => t.exposed === exposed);
    if (holder) {
      hidden.push({
        server: c.server,
        kind: "template",
        name: c.tool,
        reason: "collision",
        detail: `its URI template ${exposed} is taken by template ${holder.template}`,
      });
      continue;
    }
    templates.push({ ...offered(c), exposed, template: c.tool, uriTemplate });
  }
  return { tools, prompts, templates, hidden };
}

/**
 * A capability to offer, before naming. `tool` is its name, whatever its kind; `as` the operator's
 * own exposed name for a tool (`approvals approve --as`).
 */
interface Candidate {
  server: string;
  tool: string;
  as?: string | null;
  tier: Tier;
  approval: CapabilityApproval;
  trust: McpServerConfig["trust"];
}

/**
 * The exposure tier of an approved capability: the YAML first (its per-tool map for tools only),
 * then the approval.
 */
function tierOf(entry: CatalogEntry, a: CapabilityApproval): Tier | null {
  const yaml = entry.config.expose;
  const perTool = a.kind === "tool" ? yaml?.tools[a.name] : undefined;
  if (perTool !== undefined) return perTool === "none" ? null : perTool;
  return yaml?.tier ?? a.expose_tier;
}

function key(server: string, kind: string, name: string): string {
  return `${server.toLowerCase()}\u0000${kind}\u0000${name}`;
}

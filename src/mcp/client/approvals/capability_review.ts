/**
 * @module Reviewing servers: what each lists now (tools, prompts, resource templates), pinned to its
 * identity and compared with the approvals — run on every discovery, so a changed definition is
 * noticed the first time anyone looks, and recorded as a sighting for diffs and for processes that
 * did not look themselves. Approvals pinned under launch manifest v1 are NOT carried over here:
 * the v1 digest never covered env values, so a launch changed since would inherit them; they carry
 * when an operator signs (docs/upstream.md#upgrading-from-manifest-v1).
 */
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import type { EngramError } from "../../../core/errors.ts";
import type { ApprovalStore, CapabilityApproval } from "../../../core/ports/approval_store.ts";
import type { ApprovalBook } from "./approval_book.ts";
import {
  type CapabilityKind,
  pinListed,
  type PinnedCapability,
  serverIdentity,
} from "./capability_pins.ts";
import { capabilityStates, type CapabilityStatus } from "./capability_states.ts";
import { v1Identity } from "./pin_carry.ts";
import type { Discovery } from "../session/upstream_connections.ts";

/** One server reviewed. */
export interface ServerReview {
  server: string;
  /** Whether the server answered; when not, states come from the approvals alone. */
  reachable: boolean;
  error: EngramError | null;
  /** The identity pins of this server include (manifest digest, or URL and header keys). */
  identity: string;
  /** A stdio server's identity under launch manifest v1, to tell why an old pin drifted. */
  v1Identity: string | null;
  states: CapabilityStatus[];
  discovery: Discovery;
}

/** Pins everything a discovery listed. */
async function pinDiscovery(
  discovery: Discovery,
  identity: string,
): Promise<PinnedCapability[]> {
  const listed: [CapabilityKind, readonly object[]][] = [
    ["tool", discovery.tools],
    ["prompt", discovery.prompts],
    ["template", discovery.resourceTemplates],
  ];
  const out: PinnedCapability[] = [];
  for (const [kind, items] of listed) {
    for (const item of items) out.push(await pinListed(kind, item, identity));
  }
  return out;
}

/**
 * Reviews each discovered server against `book`; reachable servers' listings are recorded as
 * sightings in `sightings`. Nothing is carried over or written to the book.
 */
export async function reviewDiscoveries(
  discoveries: readonly Discovery[],
  o: {
    servers: readonly McpServerConfig[];
    book: ApprovalBook;
    sightings: Pick<ApprovalStore, "recordSightings">;
    now?: () => Date;
  },
): Promise<ServerReview[]> {
  const approvals = await o.book.list();
  return await Promise.all(discoveries.map(async (d) => {
    const config = o.servers.find((s) => s.name === d.server)!;
    const identity = await serverIdentity(config);
    const mine = approvals.filter((a) => a.server.toLowerCase() === d.server.toLowerCase());
    const live = d.ok ? await pinDiscovery(d, identity) : null;
    if (live) {
      await o.sightings.recordSightings(
        d.server,
        live.map((c) => ({ kind: c.kind, name: c.name, hash: c.pin, definition: c.definition })),
        (o.now ?? (() => new Date()))().toISOString(),
      );
    }
    return {
      server: d.server,
      reachable: d.ok,
      error: d.error,
      identity,
      v1Identity: await v1Identity(config),
      states: await capabilityStates(d.server, { live, approvals: mine }),
      discovery: d,
    };
  }));
}

/** A new approval of a live capability. */
export function approvalOf(
  server: string,
  capability: PinnedCapability,
  o: { identity: string; expose: CapabilityApproval["expose_tier"]; by: string; at: string },
): CapabilityApproval {
  return {
    server,
    kind: capability.kind,
    name: capability.name,
    state: "approved",
    pin: capability.pin,
    definition: capability.definition,
    identity: o.identity,
    expose_tier: o.expose,
    approved_by: o.by,
    approved_at: o.at,
    revoked_at: null,
  };
}

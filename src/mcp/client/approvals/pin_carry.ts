/**
 * @module Carrying approvals over from launch manifest v1 (docs/upstream.md#upgrading-from-manifest-v1).
 * A stdio server's identity is its manifest digest, and every pin binds it; manifest v2 gives every
 * stdio server a new digest, which would lapse every approval although no definition changed. An
 * approval whose identity is the v1 digest of the server as configured now, and whose pin is the
 * pin of its own definition under that identity, is re-pinned to the v2 identity. Its definition
 * is kept, so a capability the server now lists differently still shows as `changed`.
 */
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import type { CapabilityApproval } from "../../../core/ports/approval_store.ts";
import { manifestDigestV1 } from "../launch/launch_manifest.ts";
import { pinCapability, serverIdentity } from "./capability_pins.ts";

/** The v1 identity of a server (its manifest v1 digest), or null for an http or sse server. */
export async function v1Identity(server: McpServerConfig): Promise<string | null> {
  return server.transport === "stdio" ? await manifestDigestV1(server) : null;
}

/**
 * The approvals among `approvals` that carry over to their server's manifest v2 identity, each
 * re-pinned; the rest (another identity, a pin that is not of its definition) are left out.
 */
export async function carriedPins(
  approvals: readonly CapabilityApproval[],
  servers: readonly McpServerConfig[],
): Promise<CapabilityApproval[]> {
  return (await withCarriedPins(approvals, servers)).carried;
}

/** `approvals` with each one that carries over replaced by its carried form (same order). */
export async function withCarriedPins(
  approvals: readonly CapabilityApproval[],
  servers: readonly McpServerConfig[],
): Promise<{ approvals: CapabilityApproval[]; carried: CapabilityApproval[] }> {
  const out: CapabilityApproval[] = [];
  const carried: CapabilityApproval[] = [];
  for (const a of approvals) {
    const moved = await carryOne(a, servers);
    if (moved) carried.push(moved);
    out.push(moved ?? a);
  }
  return { approvals: out, carried };
}

async function carryOne(
  a: CapabilityApproval,
  servers: readonly McpServerConfig[],
): Promise<CapabilityApproval | null> {
  const server = servers.find((s) => s.name.toLowerCase() === a.server.toLowerCase());
  if (!server) return null;
  const v1 = await v1Identity(server);
  if (v1 === null || a.identity !== v1) return null;
  const capability = { kind: a.kind, name: a.name, definition: a.definition };
  // A pin that is not of its own definition was not made by engram: it is never re-pinned.
  if ((await pinCapability(capability, v1)).pin !== a.pin) return null;
  const identity = await serverIdentity(server);
  return { ...a, identity, pin: (await pinCapability(capability, identity)).pin };
}

/**
 * @module Carrying approvals over from launch manifest v1 (docs/upstream.md#upgrading-from-manifest-v1).
 * A stdio server's identity is its manifest digest, and every pin binds it; manifest v2 gives every
 * stdio server a new digest, which would lapse every approval although no definition changed. An
 * approval whose identity is the v1 digest of the server as configured now, and whose pin is the
 * pin of its own definition under that identity, is re-pinned to the v2 identity. Its definition
 * is kept, so a capability the server now lists differently still shows as `changed`.
 * The v1 digest never covered env values, so a pin is carried only for a launch an operator signed
 * under v2 (sign, sign --all, review — or a v2 signature by a counted key, which export checks):
 * never on discovery, where a launch changed since its v1 review would inherit its approvals.
 */
import type { McpServerConfig, StdioServerConfig } from "../../../config/mcp_servers.ts";
import type { CapabilityApproval } from "../../../core/ports/approval_store.ts";
import { manifestDigest, manifestDigestV1 } from "../launch/launch_manifest.ts";
import { findSigner } from "../launch/review_keys.ts";
import { pinCapability, serverIdentity } from "./capability_pins.ts";

/** The v1 identity of a server (its manifest v1 digest), or null for an http or sse server. */
export async function v1Identity(server: McpServerConfig): Promise<string | null> {
  return server.transport === "stdio" ? await manifestDigestV1(server) : null;
}

/**
 * The stdio servers of `servers` whose launch as configured now carries a manifest v2 signature by
 * one of `reviewKeys`: launches an operator signed, whose approvals may carry over.
 */
export async function signedUnderV2(
  servers: readonly McpServerConfig[],
  reviewKeys: readonly string[],
): Promise<StdioServerConfig[]> {
  const out: StdioServerConfig[] = [];
  for (const s of servers) {
    if (s.transport !== "stdio" || !s.manifest_signature) continue;
    const digest = await manifestDigest(s);
    if (s.manifest_digest !== digest) continue;
    if (await findSigner(digest, { signature: s.manifest_signature, reviewKeys })) out.push(s);
  }
  return out;
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

/**
 * @module Pins: what an approval of an upstream capability is bound to. A pin is `sha256:<hex>` over
 * the RFC 8785 (JCS) JSON of the capability's definition — the fields an agent acts on — plus the
 * server's identity: the launch-manifest digest of a stdio server (so changing its command, args,
 * env values, allow_env, cwd, network or sandbox lapses every approval of it; pins made under
 * manifest v1 carry over, docs/upstream.md#upgrading-from-manifest-v1), the URL and header *keys* of an HTTP
 * or SSE one. A definition hash without the name lets a renamed capability be recognised.
 *
 * The fields follow what MCPProxy and mcp-context-protector pin (description and schemas), and add
 * what they leave out: title, output schema and annotations of tools (a changed `destructiveHint`
 * is a changed tool), prompt arguments, and resource templates.
 */
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import { sha256Hex } from "../../../core/hash.ts";
import { canonicalJson, manifestDigest } from "../launch/launch_manifest.ts";

/** The kinds of capability an operator approves. */
export type CapabilityKind = "tool" | "prompt" | "template";

/** The pinned fields of each kind (anything else a server sends is not part of the approval). */
const PINNED_FIELDS: Record<CapabilityKind, readonly string[]> = {
  tool: ["name", "title", "description", "inputSchema", "outputSchema", "annotations"],
  prompt: ["name", "title", "description", "arguments"],
  template: ["uriTemplate", "name", "title", "description", "mimeType"],
};

/** A capability as a server lists it, reduced to its pinned fields. */
export interface CapabilityDefinition {
  kind: CapabilityKind;
  /** The name agents and operators use (a template's `name`). */
  name: string;
  /** The pinned fields only, absent ones left out. */
  definition: Record<string, unknown>;
}

/** A capability with its hashes. */
export interface PinnedCapability extends CapabilityDefinition {
  /** What an approval binds: definition and server identity. */
  pin: string;
  /** The definition without its name, for recognising a rename. */
  shape: string;
}

/** Reduces a listed tool, prompt or resource template to its pinned fields. */
export function capabilityDefinition(
  kind: CapabilityKind,
  listed: Record<string, unknown>,
): CapabilityDefinition {
  const definition: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS[kind]) {
    if (listed[field] !== undefined) definition[field] = listed[field];
  }
  return { kind, name: String(listed.name), definition };
}

/**
 * The identity of a server as pins see it: the manifest digest of a stdio launch; the URL and the
 * sorted header names (never their values, which are secrets and rotate) of an HTTP or SSE one.
 */
export async function serverIdentity(server: McpServerConfig): Promise<string> {
  if (server.transport === "stdio") return await manifestDigest(server);
  return await sha256(canonicalJson({
    transport: server.transport,
    url: server.url,
    header_keys: Object.keys(server.headers).sort(),
  }));
}

/** Pins a capability to a server identity. */
export async function pinCapability(
  capability: CapabilityDefinition,
  identity: string,
): Promise<PinnedCapability> {
  return {
    ...capability,
    pin: await sha256(canonicalJson({
      identity,
      kind: capability.kind,
      definition: capability.definition,
    })),
    shape: await shapeHash(capability.kind, capability.definition),
  };
}

/** Pins a capability as a server lists it (a tool, prompt or template object) to `identity`. */
export async function pinListed(
  kind: CapabilityKind,
  listed: object,
  identity: string,
): Promise<PinnedCapability> {
  return await pinCapability(
    capabilityDefinition(kind, listed as Record<string, unknown>),
    identity,
  );
}

/** The hash of a definition without its name: the same for a capability listed under a new name. */
export function shapeHash(
  kind: CapabilityKind,
  definition: Record<string, unknown>,
): Promise<string> {
  const { name: _name, ...withoutName } = definition;
  return sha256(canonicalJson({ kind, definition: withoutName }));
}

/** `sha256:<hex>` of a string's UTF-8 bytes. */
export function sha256(text: string): Promise<string> {
  return Promise.resolve(`sha256:${sha256Hex(text)}`);
}

/**
 * @module The names approved upstream tools are offered under through engram's own server:
 * `mcp_<server>_<tool>`, fitted to the rule every common client enforces for tool names
 * (`^[a-zA-Z0-9_-]{1,64}$`): other characters become `_`, and a name too long keeps its head and
 * ends in a short hash of the original, so two long names never become one. Two capabilities that
 * would still share a name are a collision: the first (by server, then tool name) keeps it, the
 * other is not exposed and is reported — never silently overwritten.
 */
import { sha256 } from "../approvals/capability_pins.ts";

/** The tool-name rule of MCP clients. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX = 64;

/** The exposed name of `tool` of `server`. */
export async function exposedName(server: string, tool: string): Promise<string> {
  const plain = `mcp_${server}_${tool}`;
  if (TOOL_NAME.test(plain)) return plain;
  // Replaced characters or a cut could make two names equal; a hash of the original keeps them apart.
  const suffix = `_${(await sha256(`${server}\u0000${tool}`)).slice(7, 13)}`;
  return plain.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX - suffix.length) + suffix;
}

/** One tool to name. */
export interface NamingRequest {
  server: string;
  tool: string;
}

/** The outcome of naming a set of tools. */
export interface ExposedNaming<T extends NamingRequest> {
  named: { exposed: string; item: T }[];
  /** Tools that lost their name to an earlier one. */
  collisions: { exposed: string; item: T; taken_by: T }[];
}

/** Names every tool; `reserved` names (engram's own tools) are never given out. */
export async function nameExposedTools<T extends NamingRequest>(
  items: readonly T[],
  reserved: ReadonlySet<string> = new Set(),
): Promise<ExposedNaming<T>> {
  const sorted = [...items].sort((a, b) =>
    a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool)
  );
  const taken = new Map<string, T>();
  const out: ExposedNaming<T> = { named: [], collisions: [] };
  for (const item of sorted) {
    const exposed = await exposedName(item.server, item.tool);
    const holder = taken.get(exposed);
    if (holder || reserved.has(exposed)) {
      out.collisions.push({ exposed, item, taken_by: holder ?? item });
      continue;
    }
    taken.set(exposed, item);
    out.named.push({ exposed, item });
  }
  return out;
}

/**
 * @module The names approved upstream tools are offered under through engram's own server:
 * `mcp_<server>_<tool>`, fitted to the rule every common client enforces for tool names
 * (`^[a-zA-Z0-9_-]{1,64}$`): other characters become `_`, and a name too long keeps its head and
 * ends in a short hash of the original, so two long names never become one. Two capabilities that
 * would still share a name are a collision: the first (by server, then tool name) keeps it, the
 * other is not exposed and is reported — never silently overwritten. An operator settles one by
 * approving the tool under a name of its own (`--as`), checked by the same rule.
 */
import { EngramError } from "../../../core/errors.ts";
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

/** A name an operator may choose for an exposed tool: the tool-name rule, and `mcp_` like every other. */
export const EXPOSED_AS = /^mcp_[a-zA-Z0-9_-]{1,60}$/;

/** What EXPOSED_AS asks, in words. */
export const EXPOSED_AS_RULE = "must start with mcp_ and be at most 64 of A-Z a-z 0-9 _ -";

/** `name` when it is a valid operator's name for an exposed tool (EXPOSED_AS), else a usage error. */
export function checkExposedAs(name: string): string {
  if (EXPOSED_AS.test(name)) return name;
  throw new EngramError(
    "invalid_argument",
    `--as ${
      JSON.stringify(name)
    } is not an exposed tool name: it ${EXPOSED_AS_RULE} (e.g. mcp_docs_search)`,
  );
}

/** One tool to name; `as` is the operator's own name for it (`approvals approve --as`). */
export interface NamingRequest {
  server: string;
  tool: string;
  as?: string | null;
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
    const exposed = item.as ?? await exposedName(item.server, item.tool);
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

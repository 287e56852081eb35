/** @module `engram mcp discover`: not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp discover`. */
export const MCP_DISCOVER_SPEC: CommandSpec = {
  name: "mcp discover",
  usage: "engram mcp discover",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp discover`. */
export function mcpDiscover(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(
    new EngramError("not_implemented", "engram mcp discover is not in this build yet"),
  );
}

/** @module `engram mcp call` and `read-resource`: not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp call`. */
export const MCP_CALL_SPEC: CommandSpec = {
  name: "mcp call",
  usage: "engram mcp call",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Usage of `engram mcp read-resource`. */
export const MCP_READ_RESOURCE_SPEC: CommandSpec = {
  name: "mcp read-resource",
  usage: "engram mcp read-resource",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp call`. */
export function mcpCall(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(new EngramError("not_implemented", "not in this build yet"));
}

/** Runs `engram mcp read-resource`. */
export function mcpReadResource(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(new EngramError("not_implemented", "not in this build yet"));
}

/** @module `engram mcp marketplace` (issue 16): not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp marketplace`. */
export const MCP_MARKETPLACE_SPEC: CommandSpec = {
  name: "mcp marketplace",
  usage: "engram mcp marketplace",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp marketplace`. */
export function mcpMarketplace(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(
    new EngramError("not_implemented", "engram mcp marketplace is not in this build yet"),
  );
}

/** @module `engram mcp exposure`: not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp exposure`. */
export const MCP_EXPOSURE_SPEC: CommandSpec = {
  name: "mcp exposure",
  usage: "engram mcp exposure",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp exposure`. */
export function mcpExposure(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(
    new EngramError("not_implemented", "engram mcp exposure is not in this build yet"),
  );
}

/** @module `engram mcp score` (issue 16): not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp score`. */
export const MCP_SCORE_SPEC: CommandSpec = {
  name: "mcp score",
  usage: "engram mcp score",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp score`. */
export function mcpScore(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(
    new EngramError("not_implemented", "engram mcp score is not in this build yet"),
  );
}

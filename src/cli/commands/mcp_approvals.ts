/** @module `engram mcp approvals`: not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp approvals`. */
export const MCP_APPROVALS_SPEC: CommandSpec = {
  name: "mcp approvals",
  usage: "engram mcp approvals",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp approvals`. */
export function mcpApprovals(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(
    new EngramError("not_implemented", "engram mcp approvals is not in this build yet"),
  );
}

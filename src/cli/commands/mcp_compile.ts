/** @module `engram mcp compile-resource` (issue 16): not built yet. */
import { EngramError } from "../../core/errors.ts";
import type { CommandSpec } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram mcp compile-resource`. */
export const MCP_COMPILE_SPEC: CommandSpec = {
  name: "mcp compile-resource",
  usage: "engram mcp compile-resource",
  summary: "Not in this build yet.",
  options: {},
  positionals: [0, 0],
};

/** Runs `engram mcp compile-resource`. */
export function mcpCompileResource(_argv: string[], _ctx: CommandContext): Promise<number> {
  return Promise.reject(
    new EngramError("not_implemented", "engram mcp compile-resource is not in this build yet"),
  );
}

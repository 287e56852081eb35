/** @module `engram serve`: the HTTP transports. Not in this build yet; says so instead of pretending. */
import { EngramError } from "../../core/errors.ts";
import { type CommandSpec, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram serve`. */
export const SERVE_SPEC: CommandSpec = {
  name: "serve",
  usage: "engram serve [--host 127.0.0.1] [--port 8787] [--tier read|write|admin]",
  summary:
    "Serve MCP over Streamable HTTP (/mcp) and legacy SSE (/sse). Not available in this build yet.",
  options: {
    host: { type: "string", help: "HOST  listen address" },
    port: { type: "string", help: "PORT  listen port" },
    tier: { type: "string", help: "TIER  tier for --insecure-no-auth sessions" },
  },
  positionals: [0, 0],
};

/** Refuses clearly until the HTTP transport lands. */
export function serveCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, SERVE_SPEC, ctx.out);
  if (!args) return Promise.resolve(0);
  throw new EngramError(
    "not_implemented",
    "engram serve (HTTP transport) is not available in this build yet; use engram stdio with an MCP client",
  );
}

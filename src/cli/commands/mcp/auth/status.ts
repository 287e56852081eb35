/**
 * @module `engram mcp auth status [NAME] [--json]`: where each remote upstream's login stands, read
 * from the database without connecting (docs/upstream.md#auth-status): no auth needed, a static
 * Authorization header, logged in until …, refresh failing, needs login — with the fix. Never a
 * token, with or without `--json`.
 */
import type { McpServerConfig } from "../../../../config/mcp_servers.ts";
import {
  describeAuthState,
  type UpstreamAuthState,
} from "../../../../mcp/client/oauth/auth_state.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../../args.ts";
import type { CommandContext } from "../../../context.ts";
import { table } from "../../../output.ts";
import { upstreamOAuth, withUpstreams } from "../../../upstreams.ts";
import { remoteServer } from "./remote_server.ts";

/** Usage of `engram mcp auth status`. */
export const MCP_AUTH_STATUS_SPEC: CommandSpec = {
  name: "mcp auth status",
  usage: "engram mcp auth status [NAME] [--json]",
  summary:
    "Show where the OAuth login of each remote upstream server (or NAME) stands, without connecting: no auth needed, static Authorization header, logged in until a time (refreshed automatically or not), refresh failing, or needs login — with why and the fix.",
  options: {
    json: {
      type: "boolean",
      help: "print each server's state, expiry, scope, client and why, as JSON (never a token)",
    },
  },
  positionals: [0, 1],
};

/** Runs `engram mcp auth status`. */
export async function mcpAuthStatus(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_AUTH_STATUS_SPEC, ctx.out);
  if (!args) return 0;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const name = args.positionals[0];
    const servers: McpServerConfig[] = name === undefined
      ? u.catalog.filter((e) => !e.problem).map((e) => e.config)
      : [remoteServer(u.catalog, name)];
    const states = await upstreamOAuth(u.runtime, u.config, ctx.env).authStates(servers);
    if (args.values.json) {
      ctx.out.json(states);
      return 0;
    }
    if (states.length === 0) {
      ctx.out.line("no remote (http or sse) upstream servers are configured");
      return 0;
    }
    print(ctx, states);
    return 0;
  });
}

function print(ctx: CommandContext, states: UpstreamAuthState[]): void {
  ctx.out.line(table([
    ["server", "transport", "login"],
    ...states.map((s) => [s.server, s.transport, describeAuthState(s)]),
  ]));
  const fixes = states.filter((s) => s.fix);
  if (fixes.length) ctx.out.line("");
  for (const s of fixes) ctx.out.line(`${s.server}: ${s.fix}`);
}

/**
 * @module `engram mcp auth logout NAME`: forgets the tokens and the client registration engram
 * keeps for a remote upstream (docs/upstream.md#oauth-upstreams). Nothing is sent to the server;
 * revoke the grant there too if it offers that. An operator action in the audit log.
 */
import { type CommandSpec, configFlags, parseOrHelp } from "../../../args.ts";
import type { CommandContext } from "../../../context.ts";
import { recordOperatorAction } from "../../../operator_audit.ts";
import { upstreamOAuth, withUpstreams } from "../../../upstreams.ts";
import { remoteServer } from "./remote_server.ts";

/** Usage of `engram mcp auth logout`. */
export const MCP_AUTH_LOGOUT_SPEC: CommandSpec = {
  name: "mcp auth logout",
  usage: "engram mcp auth logout NAME",
  summary:
    "Forget the OAuth tokens and client registration engram keeps for remote upstream server NAME (nothing is sent to the server). Its next use needs engram mcp auth login NAME.",
  options: {},
  positionals: [1, 1],
};

/** Runs `engram mcp auth logout`. */
export async function mcpAuthLogout(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_AUTH_LOGOUT_SPEC, ctx.out);
  if (!args) return 0;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const server = remoteServer(u.catalog, args.positionals[0]);
    const forgot = await upstreamOAuth(u.runtime, u.config, ctx.env).logout(server.name);
    if (!forgot) {
      ctx.out.line(`nothing is kept for upstream "${server.name}"; it was not logged in`);
      return 0;
    }
    await recordOperatorAction(u.runtime.audit, {
      env: ctx.env,
      command: "mcp auth logout",
      server: server.name,
      changes: ["logged out (tokens and client registration forgotten)"],
    });
    ctx.out.line(
      `logged out of upstream "${server.name}": its tokens and client registration are forgotten`,
    );
    return 0;
  });
}

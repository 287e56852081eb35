/**
 * @module `engram mcp auth login NAME` (docs/upstream.md#logging-in): prints the authorization URL
 * for a person to open (engram launches no browser), waits on 127.0.0.1 for the browser to come
 * back, and keeps the tokens sealed in the database. An operator action in the audit log (never
 * with a token).
 */
import { DEFAULT_LOGIN_WAIT_MS } from "../../../../mcp/client/oauth/login_flow.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../../args.ts";
import type { CommandContext } from "../../../context.ts";
import { untilInterrupted } from "../../../interrupt.ts";
import { recordOperatorAction } from "../../../operator_audit.ts";
import { upstreamOAuth, withUpstreams } from "../../../upstreams.ts";
import { describeLogin, loginChange, loginStep } from "./login_step.ts";
import { remoteServer } from "./remote_server.ts";

/** Usage of `engram mcp auth login`. */
export const MCP_AUTH_LOGIN_SPEC: CommandSpec = {
  name: "mcp auth login",
  usage: "engram mcp auth login NAME",
  summary:
    `Log in to remote upstream server NAME with OAuth: prints the authorization URL to open in a browser (engram opens none), waits up to ${
      DEFAULT_LOGIN_WAIT_MS / 60_000
    } minutes for the browser to come back to 127.0.0.1 (an ephemeral port, or the entry's oauth.redirect_port), checks the state, and keeps the tokens sealed in the database. A server that asks for more scope is asked again, at most three authorizations in all. Ctrl-C stops it.`,
  options: {},
  positionals: [1, 1],
};

/** Runs `engram mcp auth login`. */
export async function mcpAuthLogin(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_AUTH_LOGIN_SPEC, ctx.out);
  if (!args) return 0;
  return await untilInterrupted(
    ctx,
    (signal) =>
      withUpstreams(ctx, configFlags(args.values), { mode: "mcp-live" }, async (u) => {
        const server = remoteServer(u.catalog, args.positionals[0]);
        const oauth = upstreamOAuth(u.runtime, u.config, ctx.env);
        const result = await loginStep(u, server, {
          oauth,
          signal,
          write: (line) => ctx.out.line(line),
        });
        ctx.out.line(describeLogin(server.name, result));
        if (result.status === "no_auth_needed") return 0;
        await recordOperatorAction(u.runtime.audit, {
          env: ctx.env,
          command: "mcp auth login",
          server: server.name,
          changes: [loginChange(result)],
        });
        return 0;
      }),
  );
}

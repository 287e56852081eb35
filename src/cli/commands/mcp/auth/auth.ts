/**
 * @module `engram mcp auth`: logging in to remote upstream servers that require OAuth
 * (docs/upstream.md#oauth-upstreams): `login NAME`, `status [NAME]`, `logout NAME`.
 */
import { usageError } from "../../../args.ts";
import type { CommandContext } from "../../../context.ts";
import {
  asksForHelp,
  groupHelpText,
  type GroupSpec,
  unknownCommandMessage,
} from "../../../group_help.ts";
import { MCP_AUTH_LOGIN_SPEC, mcpAuthLogin } from "./login.ts";
import { MCP_AUTH_LOGOUT_SPEC, mcpAuthLogout } from "./logout.ts";
import { MCP_AUTH_STATUS_SPEC, mcpAuthStatus } from "./status.ts";

/** The auth group: `engram mcp auth --help` lists login, status and logout with their options. */
export const MCP_AUTH_GROUP: GroupSpec = {
  name: "mcp auth",
  usage: "engram mcp auth (login NAME | status [NAME] [--json] | logout NAME)",
  summary:
    "Log in to remote upstream servers that require OAuth, see where each login stands, and forget one.",
  subcommands: [MCP_AUTH_LOGIN_SPEC, MCP_AUTH_STATUS_SPEC, MCP_AUTH_LOGOUT_SPEC],
};

const WORDS = ["login", "status", "logout"];

/** Runs `engram mcp auth login`, `status` and `logout`. */
export async function mcpAuth(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "login") return await mcpAuthLogin(rest, ctx);
  if (sub === "status") return await mcpAuthStatus(rest, ctx);
  if (sub === "logout") return await mcpAuthLogout(rest, ctx);
  if (asksForHelp(sub)) {
    ctx.out.line(groupHelpText(MCP_AUTH_GROUP));
    return 0;
  }
  throw usageError(
    MCP_AUTH_STATUS_SPEC,
    sub === undefined
      ? "missing subcommand login, status or logout"
      : `${unknownCommandMessage("auth", sub, WORDS)} (auth has login, status and logout)`,
  );
}

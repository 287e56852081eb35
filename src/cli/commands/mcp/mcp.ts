/**
 * @module `engram mcp`: the operator commands of the governed MCP client (upstream servers, their
 * review and state) and the audit report. Each subcommand lives in its own module.
 */
import { type CommandSpec, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { groupHelpText, type GroupSpec, unknownSubcommand } from "../../group_help.ts";
import { MCP_APPROVALS_SPEC, mcpApprovals } from "./approvals.ts";
import { mcpAuth } from "./auth/auth.ts";
import { MCP_AUTH_LOGIN_SPEC } from "./auth/login.ts";
import { MCP_AUTH_LOGOUT_SPEC } from "./auth/logout.ts";
import { MCP_AUTH_STATUS_SPEC } from "./auth/status.ts";
import { MCP_CALL_SPEC, MCP_READ_RESOURCE_SPEC, mcpCall, mcpReadResource } from "./call.ts";
import { MCP_COMPILE_SPEC, mcpCompileResource } from "./compile.ts";
import { MCP_DISCOVER_SPEC, mcpDiscover } from "./discover.ts";
import { MCP_DOCTOR_SPEC, mcpDoctor } from "./doctor.ts";
import { MCP_EXPOSURE_SPEC, mcpExposure } from "./exposure.ts";
import { MCP_GET_PROMPT_SPEC, mcpGetPrompt } from "./get_prompt.ts";
import { MCP_IMPORT_SPEC, mcpImport } from "./import.ts";
import { MCP_KEYS_SPEC, MCP_SIGN_SPEC, mcpKeys, mcpSign } from "./keys.ts";
import { MCP_MARKETPLACE_SPEC, mcpMarketplace } from "./marketplace.ts";
import { MCP_REPORT_SPEC, mcpReport } from "./report.ts";
import { MCP_REVIEW_SPEC, mcpReview } from "./review.ts";
import { MCP_KEYS_LIST_SPEC, MCP_KEYS_REMOVE_SPEC } from "./review_keys_trust.ts";
import { MCP_SCORE_SPEC, mcpScore } from "./score.ts";
import { MCP_SET_SPEC, mcpSet } from "./set.ts";
import {
  MCP_CONSENT_SPEC,
  MCP_DISABLE_SPEC,
  MCP_ENABLE_SPEC,
  MCP_REMOVE_SPEC,
  MCP_SERVERS_SPEC,
  mcpConsent,
  mcpEnable,
  mcpRemove,
  mcpServers,
} from "./servers.ts";

/** The mcp group: its help lists every subcommand with its options. */
const MCP_GROUP: GroupSpec = {
  name: "mcp",
  usage: "engram mcp COMMAND [options]",
  summary:
    "Govern upstream MCP servers (list, import, review, sign, enable, check) and report on MCP traffic.",
  subcommands: [
    MCP_SERVERS_SPEC,
    MCP_DOCTOR_SPEC,
    MCP_DISCOVER_SPEC,
    MCP_CALL_SPEC,
    MCP_READ_RESOURCE_SPEC,
    MCP_GET_PROMPT_SPEC,
    MCP_AUTH_LOGIN_SPEC,
    MCP_AUTH_STATUS_SPEC,
    MCP_AUTH_LOGOUT_SPEC,
    MCP_APPROVALS_SPEC,
    MCP_EXPOSURE_SPEC,
    MCP_COMPILE_SPEC,
    MCP_SCORE_SPEC,
    MCP_MARKETPLACE_SPEC,
    MCP_IMPORT_SPEC,
    MCP_REVIEW_SPEC,
    MCP_SET_SPEC,
    MCP_ENABLE_SPEC,
    MCP_DISABLE_SPEC,
    MCP_CONSENT_SPEC,
    MCP_REMOVE_SPEC,
    MCP_KEYS_SPEC,
    MCP_KEYS_LIST_SPEC,
    MCP_KEYS_REMOVE_SPEC,
    MCP_SIGN_SPEC,
    MCP_REPORT_SPEC,
  ],
};

/** For usage errors of the group itself (`engram mcp bogus`). */
const MCP_SPEC: CommandSpec = {
  name: "mcp",
  usage: MCP_GROUP.usage,
  summary: MCP_GROUP.summary,
  options: {},
  positionals: [0, 1],
};

/** Runs an `engram mcp` subcommand. */
export async function mcpCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "servers":
      return await mcpServers(rest, ctx);
    case "doctor":
      return await mcpDoctor(rest, ctx);
    case "import":
      return await mcpImport(rest, ctx);
    case "review":
      return await mcpReview(rest, ctx);
    case "set":
      return await mcpSet(rest, ctx);
    case "enable":
      return await mcpEnable(rest, ctx, { enabled: true });
    case "disable":
      return await mcpEnable(rest, ctx, { enabled: false });
    case "consent":
      return await mcpConsent(rest, ctx);
    case "remove":
      return await mcpRemove(rest, ctx);
    case "keys":
      return await mcpKeys(rest, ctx);
    case "sign":
      return await mcpSign(rest, ctx);
    case "report":
      return await mcpReport(rest, ctx);
    case "discover":
      return await mcpDiscover(rest, ctx);
    case "call":
      return await mcpCall(rest, ctx);
    case "read-resource":
      return await mcpReadResource(rest, ctx);
    case "get-prompt":
      return await mcpGetPrompt(rest, ctx);
    case "auth":
      return await mcpAuth(rest, ctx);
    case "approvals":
      return await mcpApprovals(rest, ctx);
    case "exposure":
      return await mcpExposure(rest, ctx);
    case "compile-resource":
      return await mcpCompileResource(rest, ctx);
    case "score":
      return await mcpScore(rest, ctx);
    case "marketplace":
      return await mcpMarketplace(rest, ctx);
    case "--help":
    case "-h":
    case "help":
      ctx.out.line(groupHelpText(MCP_GROUP));
      return 0;
    case undefined:
      throw usageError(
        MCP_SPEC,
        `missing subcommand; engram mcp has: ${
          [...new Set(MCP_GROUP.subcommands.map((s) => s.name.split(" ")[1]))].join(", ")
        }`,
      );
  }
  throw unknownSubcommand(MCP_GROUP, sub);
}

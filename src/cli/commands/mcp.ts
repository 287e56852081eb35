/**
 * @module `engram mcp`: the operator commands of the governed MCP client (upstream servers, their
 * review and state) and the audit report. Each subcommand lives in its own module.
 */
import { EngramError } from "../../core/errors.ts";
import { type CommandSpec, usageError } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { groupHelpText, type GroupSpec } from "../group_help.ts";
import { MCP_DOCTOR_SPEC, mcpDoctor } from "./mcp_doctor.ts";
import { MCP_IMPORT_SPEC, mcpImport } from "./mcp_import.ts";
import { MCP_KEYS_SPEC, MCP_SIGN_SPEC, mcpKeys, mcpSign } from "./mcp_keys.ts";
import { MCP_REPORT_SPEC, mcpReport } from "./mcp_report.ts";
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
} from "./mcp_servers.ts";

/** The mcp group: its help lists every subcommand with its options. */
const MCP_GROUP: GroupSpec = {
  name: "mcp",
  usage: "engram mcp COMMAND [options]",
  summary:
    "Govern upstream MCP servers (list, import, review, sign, enable, check) and report on MCP traffic.",
  subcommands: [
    MCP_SERVERS_SPEC,
    MCP_DOCTOR_SPEC,
    MCP_IMPORT_SPEC,
    MCP_ENABLE_SPEC,
    MCP_DISABLE_SPEC,
    MCP_CONSENT_SPEC,
    MCP_REMOVE_SPEC,
    MCP_KEYS_SPEC,
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

/** Subcommands of later parts of the governed client, named so the refusal says what is coming. */
const NOT_YET = new Set([
  "discover",
  "call",
  "read-resource",
  "compile-resource",
  "approvals",
  "score",
  "exposure",
  "marketplace",
]);

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
    case "enable":
      return await mcpEnable(rest, ctx, true);
    case "disable":
      return await mcpEnable(rest, ctx, false);
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
    case "--help":
    case "-h":
      ctx.out.line(groupHelpText(MCP_GROUP));
      return 0;
    case undefined:
      throw usageError(
        MCP_SPEC,
        `missing subcommand; engram mcp has: ${
          MCP_GROUP.subcommands.map((s) => s.name.split(" ")[1]).join(", ")
        }`,
      );
  }
  if (NOT_YET.has(sub)) {
    throw new EngramError(
      "not_implemented",
      `engram mcp ${sub} is not in this build yet; engram mcp servers, doctor, import, enable, consent, keys and sign are`,
    );
  }
  throw usageError(MCP_SPEC, `unknown subcommand "${sub}"`);
}

/**
 * @module The usage of `engram mcp approvals`, on its own so that the command and its lockfile
 * verbs (approvals_lock.ts) can both name it without importing each other.
 */
import type { CommandSpec } from "../../args.ts";

/** Usage of `engram mcp approvals`. */
export const MCP_APPROVALS_SPEC: CommandSpec = {
  name: "mcp approvals",
  usage:
    "engram mcp approvals [list] [SERVER] | approve SERVER (NAME | --all-pending [--yes]) [--kind K] [--expose TIER|none] [--as NAME] | revoke SERVER NAME [--kind K] | diff SERVER NAME [--kind K] | export FILE | import FILE | verify [--lock FILE]",
  summary:
    "Upstream tools, prompts and resource templates are off until approved, and an approval pins the exact definition: when the server changes it, the approval lapses (state changed) until approved again. list shows every capability's state (pending, approved, changed, revoked, missing) and exposure; approve (optionally --expose read|write|admin to offer it to agents: a tool or prompt as mcp_<server>_<name>, a tool under --as NAME when that name collides, a template as upstream://<server>/<template>) and revoke change one; an approved capability is not offered to agents until exposed; diff shows what changed; export/import/verify work with a committable mcp-lock.json (verify exits 1 on drift, for CI).",
  options: {
    kind: { type: "string", help: "K  tool, prompt or template, when a name is ambiguous" },
    expose: {
      type: "string",
      help:
        "TIER  offer an approved tool, prompt or template to agents at read|write|admin (none: not exposed)",
    },
    as: {
      type: "string",
      help:
        "NAME  with approve: offer the tool to agents under NAME (mcp_…) instead of mcp_<server>_<tool>, e.g. to settle a collision",
    },
    "all-pending": { type: "boolean", help: "approve every pending capability of SERVER" },
    yes: { type: "boolean", help: "with --all-pending: no confirmation (needed off a terminal)" },
    lock: {
      type: "string",
      help: "FILE  verify against this lockfile (default mcp.approvals_lock)",
    },
    json: { type: "boolean", help: "print as JSON" },
  },
  positionals: [0, 3],
};

/**
 * @module `engram tokens create | list | revoke | pair | clients`: bearer tokens for `engram
 * serve`, and the group that dispatches to pairing codes and OAuth clients.
 */
import {
  CreateTokenInput,
  operatorProblem,
  type TokenRecord,
} from "../../../core/bearer_tokens.ts";
import type { Brain } from "../../../core/types.ts";
import {
  commandInput,
  type CommandSpec,
  configFlags,
  parseOrHelp,
  usageError,
} from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { asksForHelp, groupHelpText, type GroupSpec, unknownSubcommand } from "../../group_help.ts";
import { table } from "../../output.ts";
import { CLI_CALLER, withRuntime } from "../../runtime.ts";
import { parseToolList } from "../../../mcp/server/tool_selection.ts";
import { MEMORY_TOOLS } from "../../../mcp/server/tools/index.ts";
import {
  clientNameShown,
  shownTime as when,
  TOKENS_CLIENTS_REMOVE_SPEC,
  TOKENS_CLIENTS_SPEC,
  tokensClients,
} from "./tokens_clients.ts";
import { TOKENS_PAIR_SPEC, tokensPair } from "./tokens_pair.ts";

/** Usage of `engram tokens create`. */
export const TOKENS_CREATE_SPEC: CommandSpec = {
  name: "tokens create",
  usage:
    "engram tokens create --client NAME --tier read|write|admin [--brain SLUG]... [--tools LIST] [--operator] [--json]",
  summary:
    "Create a bearer token for `engram serve`. The token is printed once and cannot be shown " +
    "again: engram keeps only its SHA-256 hash. Without --brain it may use every brain.\n" +
    "When stdout is not a terminal, stdout is the token alone on one line (notes go to stderr).",
  options: {
    client: { type: "string", help: "NAME  client id, 1..128 of A-Z a-z 0-9 . _ @ -" },
    tier: { type: "string", help: "T  read, write or admin" },
    brain: {
      type: "string",
      multiple: true,
      help: "SLUG  a brain the token may use (else all brains)",
    },
    tools: {
      type: "string",
      help:
        "LIST  limit its sessions to these tools: names or globs, comma-separated (memory_search,mcp_files_*)",
    },
    operator: {
      type: "boolean",
      help:
        "with --tier admin only: the web console lets this token approve and revoke upstream tools",
    },
    json: {
      type: "boolean",
      help: "print { token, id, client_id, tier, brains, tools, operator } as JSON",
    },
  },
  positionals: [0, 0],
};

/** Usage of `engram tokens list`. */
export const TOKENS_LIST_SPEC: CommandSpec = {
  name: "tokens list",
  usage: "engram tokens list [--json]",
  summary:
    "List tokens, revoked and expired ones included, with each OAuth token's client. Only the " +
    "first characters of each token are shown.",
  options: { json: { type: "boolean", help: "print as JSON" } },
  positionals: [0, 0],
};

/** Usage of `engram tokens revoke`. */
export const TOKENS_REVOKE_SPEC: CommandSpec = {
  name: "tokens revoke",
  usage: "engram tokens revoke ID [--json]",
  summary: "Revoke a token by id (tok_…, see engram tokens list). It stops working at once.",
  options: { json: { type: "boolean", help: "print the revoked token's record as JSON" } },
  positionals: [1, 1],
};

/** The tokens group: its help lists every subcommand with its options. */
const TOKENS_GROUP: GroupSpec = {
  name: "tokens",
  usage:
    "engram tokens (create --client NAME --tier T [--brain SLUG]... | list | revoke ID | pair --tier T [--brain SLUG]... | clients [remove CLIENT_ID])",
  summary:
    "Manage bearer tokens for `engram serve` (HTTP), pairing codes and OAuth clients. Tokens and codes are stored only as a hash.",
  subcommands: [
    TOKENS_CREATE_SPEC,
    TOKENS_LIST_SPEC,
    TOKENS_REVOKE_SPEC,
    TOKENS_PAIR_SPEC,
    TOKENS_CLIENTS_SPEC,
    TOKENS_CLIENTS_REMOVE_SPEC,
  ],
};

/** Dispatches `tokens create`, `list`, `revoke`, `pair` and `clients`. */
export async function tokensCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "create") return await create(rest, ctx);
  if (sub === "list") return await list(rest, ctx);
  if (sub === "revoke") return await revoke(rest, ctx);
  if (sub === "pair") return await tokensPair(rest, ctx);
  if (sub === "clients") return await tokensClients(rest, ctx);
  if (sub === undefined) {
    ctx.out.warn(groupHelpText(TOKENS_GROUP));
    return 2;
  }
  if (asksForHelp(sub)) {
    ctx.out.line(groupHelpText(TOKENS_GROUP));
    return 0;
  }
  throw unknownSubcommand(TOKENS_GROUP, sub);
}

async function create(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, TOKENS_CREATE_SPEC, ctx.out);
  if (!args) return 0;
  for (const flag of ["client", "tier"]) {
    if (args.values[flag] === undefined) throw usageError(TOKENS_CREATE_SPEC, `missing --${flag}`);
  }
  // Validated before the database is opened, so a typo never creates a data directory.
  const input = commandInput(
    CreateTokenInput,
    {
      client: args.values.client,
      tier: args.values.tier,
      brains: args.values.brain,
      tools: args.values.tools === undefined
        ? undefined
        : parseToolList(args.values.tools as string, MEMORY_TOOLS.map((t) => t.name)),
      operator: args.values.operator ? true : undefined,
    },
    { spec: TOKENS_CREATE_SPEC, renames: { brains: "--brain" } },
  );
  const operator = operatorProblem(input);
  if (operator) throw usageError(TOKENS_CREATE_SPEC, operator);
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const { token, record } = await runtime.tokens.create(input);
    const brains = slugsOf(record, await runtime.service.listBrains(CLI_CALLER));
    if (args.values.json) {
      ctx.out.json({
        token,
        id: record.id,
        client_id: record.client_id,
        tier: record.tier,
        brains,
        tools: record.tools,
        operator: record.operator === true,
      });
      return 0;
    }
    const what = `token ${record.id} for client ${record.client_id} (tier ${record.tier}${
      record.operator ? ", operator" : ""
    }, brains: ${brains === "*" ? "all" : brains.join(", ")}${
      record.tools ? `, tools: ${record.tools.join(",")}` : ""
    })`;
    const warning = "This is the only time it is shown: engram keeps only its hash. Store it now.";
    if (ctx.out.isTerminal) {
      ctx.out.line(`created ${what}\n\n  ${ctx.out.bold(token)}\n\n${warning}`);
    } else {
      // Script-friendly: stdout is the token alone, e.g. TOKEN=$(engram tokens create …).
      ctx.out.line(token);
      ctx.out.warn(`created ${what}. ${warning}`);
    }
    return 0;
  });
}

async function list(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, TOKENS_LIST_SPEC, ctx.out);
  if (!args) return 0;
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const records = await runtime.tokens.list();
    const brains = await runtime.service.listBrains(CLI_CALLER);
    const items = records.map((r) => view(r, brains));
    if (args.values.json) ctx.out.json({ items });
    else if (items.length === 0) {
      ctx.out.line("no tokens; create one with: engram tokens create --client NAME --tier T");
    } else {
      ctx.out.line(table([
        [
          "ID",
          "CLIENT",
          "TIER",
          "BRAINS",
          "TOOLS",
          "TOKEN",
          "CREATED",
          "LAST USED",
          "EXPIRES",
          "REVOKED",
          "OAUTH CLIENT",
        ],
        ...items.map((t) => [
          t.id,
          t.client_id,
          t.operator ? `${t.tier}+operator` : t.tier,
          t.brains === "*" ? "*" : t.brains.join(","),
          t.tools ? t.tools.join(",") : "*",
          `egt_${t.prefix}…`,
          when(t.created_at),
          when(t.last_used_at),
          when(t.expires_at),
          when(t.revoked_at),
          t.oauth_client_id === null ? "-" : clientNameShown(t.oauth_client_name),
        ]),
      ]));
    }
    return 0;
  });
}

async function revoke(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, TOKENS_REVOKE_SPEC, ctx.out);
  if (!args) return 0;
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const record = await runtime.tokens.revoke(args.positionals[0]);
    if (args.values.json) ctx.out.json(view(record, await runtime.service.listBrains(CLI_CALLER)));
    else ctx.out.line(`revoked token ${record.id} (client ${record.client_id})`);
    return 0;
  });
}

/**
 * A record as the CLI shows it: brains by slug (a brain that no longer exists keeps its id), and
 * `operator` always present.
 */
function view<T extends TokenRecord>(record: T, brains: Brain[]): T {
  return { ...record, brains: slugsOf(record, brains), operator: record.operator === true };
}

function slugsOf(record: TokenRecord, brains: Brain[]): string[] | "*" {
  if (record.brains === "*") return "*";
  return record.brains.map((id) => brains.find((b) => b.id === id)?.slug ?? id);
}

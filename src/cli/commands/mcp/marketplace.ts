/**
 * @module `engram mcp marketplace [list | show NAME | add NAME]`: the curated offline catalogue of
 * vetted upstream servers. `show` prints a ready config entry; `add` writes the server into the
 * database like an import — disabled, user_added, consent pending and unsigned, for review.
 */
import { stringify } from "yaml";
import { EngramError } from "../../../core/errors.ts";
import {
  marketplace,
  marketplaceConfig,
  type MarketplaceEntry,
  marketplaceEntry,
} from "../../../mcp/client/marketplace/marketplace.ts";
import { addPendingUpstream } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { table } from "../../output.ts";
import { withUpstreams } from "../../upstreams.ts";
import { unknownCommandMessage } from "../../group_help.ts";

/** Usage of `engram mcp marketplace`. */
export const MCP_MARKETPLACE_SPEC: CommandSpec = {
  name: "mcp marketplace",
  usage:
    "engram mcp marketplace [list] | show NAME | add NAME [--as NAME] [--set KEY=VALUE]... [--json]",
  summary:
    "A curated offline catalogue of vetted upstream servers, each with a pinned package version, the sandbox profile and network it needs, and whether it was tested on the machine that builds engram. list shows them by category; show prints one with a ready config entry; add writes it into the database as a server named NAME (or --as), disabled, user_added and consent pending, like an import: review, sign, consent and enable it before it starts.",
  options: {
    as: { type: "string", help: "NAME  the server's name when added (default: the entry's)" },
    set: {
      type: "string",
      multiple: true,
      help: "KEY=VALUE  a parameter the entry needs (e.g. FOLDER=/home/me/notes)",
    },
    json: { type: "boolean", help: "print as JSON" },
  },
  positionals: [0, 2],
};

/** Runs `engram mcp marketplace …`. */
export async function mcpMarketplace(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_MARKETPLACE_SPEC, ctx.out);
  if (!args) return 0;
  const [verb = "list", name] = args.positionals;
  const json = args.values.json === true;
  const sets = (args.values.set as string[] | undefined) ?? [];
  if (verb !== "add" && (sets.length || args.values.as !== undefined)) {
    throw usageError(MCP_MARKETPLACE_SPEC, "--as and --set go with add");
  }
  if (verb === "list") {
    if (name !== undefined) throw usageError(MCP_MARKETPLACE_SPEC, `unexpected argument "${name}"`);
    return list(ctx, json);
  }
  if (verb !== "show" && verb !== "add") {
    throw usageError(
      MCP_MARKETPLACE_SPEC,
      `${
        unknownCommandMessage("marketplace", verb, ["list", "show", "add"])
      }; it has: list, show NAME, add NAME`,
    );
  }
  if (name === undefined) {
    throw usageError(
      MCP_MARKETPLACE_SPEC,
      `missing NAME; see the servers with: engram mcp marketplace list`,
    );
  }
  const entry = marketplaceEntry(marketplace(), name);
  if (verb === "show") return show(ctx, entry, json);
  const config = marketplaceConfig(entry, {
    as: args.values.as as string | undefined,
    values: parseSets(sets),
  });
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const taken = u.catalog.find((e) => e.config.name.toLowerCase() === config.name.toLowerCase());
    if (taken) {
      const at = taken.yaml.name;
      throw new EngramError(
        "conflict",
        `a server named "${taken.config.name}" already exists (${
          taken.origin === "yaml" && at ? `${at.file}:${at.line}` : taken.origin
        }); add this one under another name with --as NAME`,
      );
    }
    // As an import: disabled and consent pending, for review.
    await addPendingUpstream(u.runtime.upstreams, config, {
      origin: "marketplace",
      imported_from: null,
    });
    const added = config.name;
    if (json) {
      ctx.out.json({ added, from: entry.name, package: packageOf(entry), config });
      return 0;
    }
    ctx.out.line(
      `added ${added} from the marketplace (${
        packageOf(entry)
      }): disabled, user_added, consent pending`,
    );
    ctx.out.line(
      `review it, then: engram mcp doctor ${added} (what still blocks it, e.g. ${
        config.transport === "stdio" ? `${config.command} in mcp.stdio_allowed_commands, ` : ""
      }the signature), engram mcp sign ${added} --key FILE, engram mcp consent ${added} approved, engram mcp enable ${added}`,
    );
    return 0;
  });
}

function list(ctx: CommandContext, json: boolean): number {
  const { reviewed_at, servers } = marketplace();
  if (json) {
    ctx.out.json({ reviewed_at, servers: servers.map(summary) });
    return 0;
  }
  ctx.out.line(`the engram marketplace, reviewed ${reviewed_at}: ${servers.length} server(s)`);
  const categories = [...new Set(servers.map((s) => s.category))].sort();
  for (const category of categories) {
    ctx.out.line("");
    ctx.out.line(`${category}:`);
    ctx.out.line(table(
      servers.filter((s) => s.category === category).map((s) => [
        `  ${s.name}`,
        s.tested ? "tested" : "untested",
        packageOf(s),
        sandboxOf(s),
        s.description,
      ]),
    ));
  }
  const untested = servers.filter((s) => !s.tested);
  if (untested.length) {
    ctx.out.line("");
    for (const s of untested) ctx.out.line(`untested ${s.name}: ${s.untested_reason ?? "not run"}`);
  }
  ctx.out.line("");
  ctx.out.line("details and a ready config entry: engram mcp marketplace show NAME");
  return 0;
}

function show(ctx: CommandContext, entry: MarketplaceEntry, json: boolean): number {
  const yaml = readyYaml(entry);
  if (json) {
    ctx.out.json({ ...summary(entry), parameters: entry.parameters, notes: entry.notes, yaml });
    return 0;
  }
  ctx.out.line(`${entry.name}: ${entry.title}`);
  ctx.out.line(entry.description);
  ctx.out.line("");
  ctx.out.line(table([
    ["category", entry.category],
    ["package", packageOf(entry)],
    ["homepage", entry.homepage],
    ["tested", entry.tested ? "yes" : `no: ${entry.untested_reason ?? "not run"}`],
    ["sandbox", sandboxOf(entry)],
    ...Object.entries(entry.parameters).map(([k, v]) => [`parameter ${k}`, v]),
  ]));
  ctx.out.line("");
  ctx.out.line(`notes: ${entry.notes}`);
  ctx.out.line("");
  ctx.out.line("config entry (engram.yaml):");
  ctx.out.line("");
  ctx.out.line(yaml.trimEnd());
  ctx.out.line("");
  const sets = Object.keys(entry.parameters).map((k) => ` --set ${k}=…`).join("");
  ctx.out.line(
    `or add it to the database, disabled and pending review: engram mcp marketplace add ${entry.name}${sets}`,
  );
  return 0;
}

/** The entry as it goes under `mcp:` in the config file, `${PARAMETER}`s left to fill. */
function readyYaml(entry: MarketplaceEntry): string {
  const command = entry.config.command;
  return stringify({
    mcp: {
      ...(typeof command === "string" ? { stdio_allowed_commands: [command] } : {}),
      mcp_servers: [{ name: entry.name, ...entry.config, client_consent: "pending" }],
    },
  });
}

function summary(s: MarketplaceEntry) {
  return {
    name: s.name,
    title: s.title,
    description: s.description,
    category: s.category,
    registry: s.registry,
    package: s.package,
    version: s.version,
    homepage: s.homepage,
    tested: s.tested,
    untested_reason: s.untested_reason ?? null,
    sandbox_profile: s.config.sandbox_profile ?? "restricted",
    network: s.config.network === true,
  };
}

function packageOf(s: MarketplaceEntry): string {
  return `${s.registry} ${s.package}@${s.version}`;
}

function sandboxOf(s: MarketplaceEntry): string {
  return `${s.config.sandbox_profile ?? "restricted"}, ${
    s.config.network === true ? "network" : "no network"
  }`;
}

/** `--set KEY=VALUE` pairs; anything else is a usage error. */
function parseSets(sets: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const set of sets) {
    const at = set.indexOf("=");
    if (at <= 0) {
      throw usageError(MCP_MARKETPLACE_SPEC, `--set "${set}" is not KEY=VALUE`);
    }
    values[set.slice(0, at)] = set.slice(at + 1);
  }
  return values;
}

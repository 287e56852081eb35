/**
 * @module `engram mcp keys generate` and `engram mcp sign`: a reviewer's Ed25519 key, and the
 * signed digest of a stdio server's launch manifest (docs/upstream.md#with-openssl
 * does the same with openssl).
 */
import { resolve } from "node:path";
import { configFileHint, locateConfig } from "../../../config/config_file.ts";
import { configDirectory, joinPath } from "../../../config/paths.ts";
import { EngramError } from "../../../core/errors.ts";
import { commandChecks } from "../../../mcp/client/launch/command_rules.ts";
import { countedReviewKeys } from "../../../mcp/client/launch/launch_facts.ts";
import { manifestDigest } from "../../../mcp/client/launch/launch_manifest.ts";
import {
  generateReviewKey,
  readPrivateKey,
  REVIEW_KEY_FILE,
  signDigest,
} from "../../../mcp/client/launch/review_keys.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import {
  asksForHelp,
  groupHelpText,
  type GroupSpec,
  unknownCommandMessage,
} from "../../group_help.ts";
import { trustedKeysOf, withUpstreams } from "../../upstreams.ts";
import {
  MCP_KEYS_LIST_SPEC,
  MCP_KEYS_REMOVE_SPEC,
  mcpKeysList,
  mcpKeysRemove,
} from "./review_keys_trust.ts";
import { carryApprovals, signAll } from "./sign_all.ts";

/** Usage of `engram mcp keys generate`. */
export const MCP_KEYS_SPEC: CommandSpec = {
  name: "mcp keys generate",
  usage: "engram mcp keys generate [--out DIR] [--json]",
  summary:
    `Create a reviewer's Ed25519 key pair: the private key is written to DIR/${REVIEW_KEY_FILE} (PKCS#8 PEM, mode 0600, never overwritten) and the public key is printed as the mcp.review_keys entry to add to the config file, which it names (the one in use, or the one to create; see engram config path).`,
  options: {
    out: { type: "string", help: "DIR  where to write the key (default $XDG_CONFIG_HOME/engram)" },
    json: { type: "boolean", help: "print { file, review_key } as JSON" },
  },
  positionals: [0, 0],
};

/** Usage of `engram mcp sign`. */
export const MCP_SIGN_SPEC: CommandSpec = {
  name: "mcp sign",
  usage:
    "engram mcp sign NAME --key FILE [--json] | engram mcp sign --all --key FILE [--yes] [--json]",
  summary:
    "Sign the launch manifest (v2) of stdio server NAME after reviewing it: prints manifest_digest and manifest_signature to paste into its config entry (an imported server gets them stored), and carries its approvals made under manifest v1 over. --all signs again every server a trusted key signed as it is configured now (under manifest v1 or v2), after showing every env value it covers and a confirmation (--yes off a terminal); a server with a loader key in env or a non-empty allow_env is left for engram mcp review. The key's public half must be in mcp.review_keys for the signature to count.",
  options: {
    key: { type: "string", help: "FILE  the reviewer's private key (PKCS#8 PEM)" },
    all: {
      type: "boolean",
      help: "sign again every server signed as it is configured now (the move to manifest v2)",
    },
    yes: {
      type: "boolean",
      help: "with --all: sign without asking (needed off a terminal, and with --json)",
    },
    json: { type: "boolean", help: "print { server, manifest_digest, manifest_signature }" },
  },
  positionals: [0, 1],
};

/** The keys group: `engram mcp keys --help` lists generate, list and remove with their options. */
const MCP_KEYS_GROUP: GroupSpec = {
  name: "mcp keys",
  usage: "engram mcp keys (generate [--out DIR] | list | remove KEY) [--json]",
  summary:
    "Reviewers' Ed25519 keys: create one, and list or remove the keys whose signatures count.",
  subcommands: [MCP_KEYS_SPEC, MCP_KEYS_LIST_SPEC, MCP_KEYS_REMOVE_SPEC],
};

/** Runs `engram mcp keys generate`, `list` and `remove`. */
export async function mcpKeys(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return await mcpKeysList(rest, ctx);
  if (sub === "remove") return await mcpKeysRemove(rest, ctx);
  if (asksForHelp(sub)) {
    ctx.out.line(groupHelpText(MCP_KEYS_GROUP));
    return 0;
  }
  if (sub !== "generate") {
    throw usageError(
      MCP_KEYS_SPEC,
      sub === undefined
        ? "missing subcommand generate, list or remove"
        : `${
          unknownCommandMessage("keys", sub, ["generate", "list", "remove"])
        } (keys has generate, list and remove)`,
    );
  }
  const args = parseOrHelp(rest, MCP_KEYS_SPEC, ctx.out);
  if (!args) return 0;
  // Found before the key is written: a --config naming nothing stops here, not after.
  const where = locateConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
  const dir = args.values.out === undefined
    ? configDirectory({ env: ctx.env, cwd: ctx.cwd })
    : resolve(ctx.cwd, args.values.out as string);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 }).catch((err) => {
    throw new EngramError(
      "invalid_argument",
      `cannot create key directory ${dir}: ${(err as Error).message}; pass --out DIR`,
    );
  });
  const key = await generateReviewKey(joinPath(dir, REVIEW_KEY_FILE));
  if (args.values.json) ctx.out.json({ file: key.file, review_key: key.reviewKey });
  else {
    ctx.out.line(`wrote the private key to ${key.file} (mode 0600); keep it secret`);
    ctx.out.line(`add the public key to ${configFileHint(where)}:`);
    ctx.out.line("");
    ctx.out.line("mcp:");
    ctx.out.line(`  review_keys: ["${key.reviewKey}"]`);
  }
  return 0;
}

/** Runs `engram mcp sign`. */
export async function mcpSign(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_SIGN_SPEC, ctx.out);
  if (!args) return 0;
  const all = args.values.all === true;
  if (all === (args.positionals.length === 1)) {
    throw usageError(MCP_SIGN_SPEC, all ? "--all takes no NAME" : "missing NAME (or --all)");
  }
  if (args.values.key === undefined) throw usageError(MCP_SIGN_SPEC, "missing --key FILE");
  const signer = await readPrivateKey(resolve(ctx.cwd, args.values.key as string));
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    if (all) {
      return await signAll(u, ctx, {
        signer,
        json: args.values.json === true,
        yes: args.values.yes === true,
      });
    }
    const entry = findEntry(u.catalog, args.positionals[0]);
    const server = entry.config;
    if (server.transport !== "stdio") {
      throw new EngramError(
        "invalid_argument",
        `server "${server.name}" is reached over ${server.transport}, not started: only stdio servers have a launch manifest to sign`,
      );
    }
    // A launch that cannot run as written (a list-valued or shell command) is not signed.
    const shape = commandChecks(server.command).find((c) => !c.ok);
    if (shape) {
      throw new EngramError(
        "invalid_argument",
        `server "${server.name}" cannot be signed: ${shape.detail}; ${shape.fix}`,
      );
    }
    const digest = await manifestDigest(server);
    const signature = await signDigest(digest, signer);
    // Review keys are canonical base64 (the config refuses any other spelling), so a listed key
    // is the very string of the signer's public half.
    const trusted = countedReviewKeys(u.config.mcp.review_keys, await trustedKeysOf(u.runtime))
      .keys.includes(signer.reviewKey);
    if (entry.origin !== "yaml") {
      await u.runtime.upstreams.setUpstreamDefinition(server.name, {
        ...entry.state!.definition,
        manifest_digest: digest,
        manifest_signature: signature,
      });
    }
    // docs/upstream.md#upgrading-from-manifest-v1: the approvals move with the signature.
    const carried = (await carryApprovals(u, [server])).get(server.name) ?? 0;
    if (args.values.json) {
      ctx.out.json({
        server: server.name,
        manifest_digest: digest,
        manifest_signature: signature,
        stored: entry.origin !== "yaml",
        key_trusted: trusted,
        carried,
      });
      return 0;
    }
    if (entry.origin === "yaml") {
      const at = entry.yaml.name;
      ctx.out.line(
        `paste into the entry of ${server.name}${at ? ` (${at.file}:${at.line})` : ""}:`,
      );
    } else ctx.out.line(`stored in the imported entry of ${server.name}:`);
    ctx.out.line("");
    ctx.out.line(`      manifest_digest: "${digest}"`);
    ctx.out.line(`      manifest_signature: "${signature}"`);
    if (carried) {
      ctx.out.line("");
      ctx.out.line(
        `${carried} approval(s) made under launch manifest v1 carried over (definitions unchanged)`,
      );
    }
    if (!trusted) {
      ctx.out.warn(
        `note: this key is not in mcp.review_keys yet, so the signature will not count until you add: "${signer.reviewKey}"`,
      );
    }
    return 0;
  });
}

/**
 * @module The operator's review key (docs/upstream.md#review-from-import-to-an-exposed-tool): the
 * Ed25519 key `engram mcp review` signs launches with — created on first use in engram's config
 * folder (the file `keys generate` writes there), trusted through a row in the database while
 * `mcp.review_keys` is empty — and `engram mcp keys list | remove`, which show and drop those rows.
 * When a team sets `mcp.review_keys`, only its keys count: review then refuses to sign with another.
 */
import { operatorName } from "../../../config/env.ts";
import { REVIEW_KEY } from "../../../config/mcp_servers.ts";
import { configDirectory, joinPath } from "../../../config/paths.ts";
import { EngramError } from "../../../core/errors.ts";
import { countedReviewKeys } from "../../../mcp/client/launch/launch_facts.ts";
import {
  generateReviewKey,
  readPrivateKey,
  REVIEW_KEY_FILE,
  type ReviewSigner,
} from "../../../mcp/client/launch/review_keys.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { recordOperatorAction } from "../../operator_audit.ts";
import { table } from "../../output.ts";
import { trustedKeysOf, type UpstreamSetup, withUpstreams } from "../../upstreams.ts";

/** Usage of `engram mcp keys list`. */
export const MCP_KEYS_LIST_SPEC: CommandSpec = {
  name: "mcp keys list",
  usage: "engram mcp keys list [--json]",
  summary:
    "List the review keys whose signatures count: those of mcp.review_keys in the config file when it lists any (then only those), else those trusted through the database — the operator's review key, added by engram mcp review on first use.",
  options: { json: { type: "boolean", help: "print the keys as JSON" } },
  positionals: [0, 0],
};

/** Usage of `engram mcp keys remove`. */
export const MCP_KEYS_REMOVE_SPEC: CommandSpec = {
  name: "mcp keys remove",
  usage: "engram mcp keys remove KEY",
  summary:
    "Stop trusting a review key trusted through the database (KEY as keys list prints it, ed25519:…): launches it signed are blocked until signed again. A key of mcp.review_keys is removed from the config file.",
  options: {},
  positionals: [1, 1],
};

/** The operator's review key, ready to sign, and what making it count changed (for the audit log). */
export interface SigningKey {
  signer: ReviewSigner;
  file: string;
  changes: string[];
}

/**
 * The operator's review key (engram's config folder, the file `keys generate` writes there), made
 * to count: with `mcp.review_keys` empty it is created on first use (PKCS#8 PEM, mode 0600) and
 * trusted through the database; with keys there it must be one of them, or review refuses to sign
 * — before creating anything.
 */
export async function signingKey(
  u: UpstreamSetup,
  o: { ctx: CommandContext; server: string },
): Promise<SigningKey> {
  const dir = configDirectory({ env: o.ctx.env, cwd: o.ctx.cwd });
  const file = joinPath(dir, REVIEW_KEY_FILE);
  const exists = await Deno.lstat(file).then(() => true, (err) => {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  });
  const configured = u.config.mcp.review_keys;
  const refuse = (what: string) =>
    new EngramError(
      "conflict",
      `mcp.review_keys in ${
        u.config.configFile ?? "the config file"
      } lists ${configured.length} key(s), and only those count; ${what}, so review does not sign ${o.server}: sign with a listed key (engram mcp sign ${o.server} --key FILE), or add the operator's key to mcp.review_keys`,
    );
  if (configured.length && !exists) {
    throw refuse(`the operator's review key (${file}) does not exist and is not one of them`);
  }
  const changes: string[] = [];
  if (!exists) {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 }).catch((err) => {
      throw new EngramError(
        "invalid_argument",
        `cannot create engram's config folder ${dir} for the review key: ${
          (err as Error).message
        }; set XDG_CONFIG_HOME to a writable folder`,
      );
    });
    await generateReviewKey(file);
    changes.push(`created the operator's review key ${file} (mode 0600)`);
  }
  const signer = await readPrivateKey(file);
  if (configured.length) {
    if (!configured.includes(signer.reviewKey)) {
      throw refuse(`the operator's review key ${signer.reviewKey} (${file}) is not one of them`);
    }
    return { signer, file, changes };
  }
  if (!(await trustedKeysOf(u.runtime)).includes(signer.reviewKey)) {
    await u.runtime.upstreams.trustReviewKey({
      key: signer.reviewKey,
      file,
      added_by: operatorName(o.ctx.env),
    });
    changes.push(`trusted the operator's review key ${signer.reviewKey} in the database`);
  }
  return { signer, file, changes };
}

/** Runs `engram mcp keys list`. */
export async function mcpKeysList(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_KEYS_LIST_SPEC, ctx.out);
  if (!args) return 0;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const stored = await u.runtime.upstreams.listTrustedReviewKeys();
    const configured = u.config.mcp.review_keys;
    const { source } = countedReviewKeys(configured, stored.map((k) => k.key));
    const file = u.config.configFile ?? "the config file";
    const rows = [
      ...configured.map((key) => ({
        key,
        source: "config",
        counts: true,
        file: null as string | null,
        added_by: null as string | null,
        added_at: null as string | null,
      })),
      ...stored.map((k) => ({ ...k, source: "database", counts: source === "database" })),
    ];
    if (args.values.json) {
      ctx.out.json({ counted: source, config_file: u.config.configFile, keys: rows });
      return 0;
    }
    if (rows.length === 0) {
      ctx.out.line(
        "no review key is trusted; engram mcp review NAME creates the operator's and trusts it, or add keys to mcp.review_keys (engram mcp keys generate prints one)",
      );
      return 0;
    }
    ctx.out.line(table([
      ["key", "from", "counts", "private key", "added"],
      ...rows.map((r) => [
        r.key,
        r.source === "config" ? `mcp.review_keys (${file})` : "database",
        r.counts ? "yes" : "no",
        r.file ?? "-",
        r.added_at ? `${r.added_at.slice(0, 19)}Z by ${r.added_by}` : "-",
      ]),
    ]));
    if (source === "config" && stored.length) {
      ctx.out.line("");
      ctx.out.line(
        `mcp.review_keys in ${file} lists keys, so only those count; the database's do not`,
      );
    }
    return 0;
  });
}

/** Runs `engram mcp keys remove`. */
export async function mcpKeysRemove(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_KEYS_REMOVE_SPEC, ctx.out);
  if (!args) return 0;
  const key = args.positionals[0];
  if (!REVIEW_KEY.test(key)) {
    throw usageError(
      MCP_KEYS_REMOVE_SPEC,
      `${
        JSON.stringify(key)
      } is not a review key (ed25519:<base64>); list them with: engram mcp keys list`,
    );
  }
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    if (await u.runtime.upstreams.removeTrustedReviewKey(key)) {
      await recordOperatorAction(u.runtime.audit, {
        env: ctx.env,
        command: MCP_KEYS_REMOVE_SPEC.name,
        server: null,
        changes: [`stopped trusting review key ${key}`],
      });
      ctx.out.line(
        `removed review key ${key}: launches only it signed are blocked until signed again (engram mcp review NAME)`,
      );
      return 0;
    }
    if (u.config.mcp.review_keys.includes(key)) {
      throw new EngramError(
        "conflict",
        `review key ${key} is listed in mcp.review_keys of ${
          u.config.configFile ?? "the config file"
        }; remove it there`,
      );
    }
    throw new EngramError(
      "not_found",
      `review key ${key} is not trusted here; list them with: engram mcp keys list`,
    );
  });
}

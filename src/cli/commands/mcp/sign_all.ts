/**
 * @module `engram mcp sign --all --key FILE [--yes]`: signs again, under launch manifest v2, every
 * stdio server whose launch a trusted key signed as it is configured now — under v1 (env names
 * only) or v2 — and carries its approvals over (docs/upstream.md#upgrading-from-manifest-v1). A
 * server nobody signed, or changed since it was signed, is left for a review: signing it blind
 * would vouch for a launch no one looked at. So is one with a loader key in env or a non-empty
 * allow_env: v1 covered neither env values nor allow_env, so `NODE_OPTIONS: --require evil.cjs`
 * added after a v1 review keeps its v1 signature. Every env value the new signatures cover is shown
 * before anything is written, and the operator confirms (`--yes` off a terminal).
 */
import type { StdioServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import type { CapabilityApproval } from "../../../core/ports/approval_store.ts";
import { terminalSafeJson } from "../../../core/text/terminal_text.ts";
import { carriedPins } from "../../../mcp/client/approvals/pin_carry.ts";
import { commandChecks } from "../../../mcp/client/launch/command_rules.ts";
import { loaderKey } from "../../../mcp/client/launch/env_loader.ts";
import { countedReviewKeys } from "../../../mcp/client/launch/launch_facts.ts";
import { manifestDigest, manifestDigestV1 } from "../../../mcp/client/launch/launch_manifest.ts";
import {
  findSigner,
  type ReviewSigner,
  signDigest,
} from "../../../mcp/client/launch/review_keys.ts";
import type { CatalogEntry } from "../../../mcp/client/upstream_catalog.ts";
import { confirmOnTerminal } from "../../confirm.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { trustedKeysOf, type UpstreamSetup } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";

/** One server signed: where its signature went, and how many approvals carried over. */
interface Signed {
  server: string;
  manifest_digest: string;
  manifest_signature: string;
  /** True for an imported or marketplace server (stored); false: lines to paste into `file`. */
  stored: boolean;
  /** The config file (and line) of a YAML entry. */
  file?: string;
  /** The env values as written that the new signature covers, for the reviewer to see. */
  env: Record<string, string>;
  carried: number;
}

/**
 * Moves every approval of `servers` pinned under manifest v1 to v2 in the approval book; returns
 * how many moved per server.
 */
export async function carryApprovals(
  u: UpstreamSetup,
  servers: readonly StdioServerConfig[],
): Promise<Map<string, number>> {
  const book = approvalBook(u);
  const carried: CapabilityApproval[] = await carriedPins(await book.list(), servers);
  for (const a of carried) await book.put(a);
  const counts = new Map<string, number>();
  for (const a of carried) counts.set(a.server, (counts.get(a.server) ?? 0) + 1);
  return counts;
}

/** Runs `engram mcp sign --all`: exit 2 off a terminal without `yes` (nothing changed). */
export async function signAll(
  u: UpstreamSetup,
  ctx: CommandContext,
  o: { signer: ReviewSigner; json: boolean; yes: boolean },
): Promise<number> {
  // The config's keys, or — while it lists none — those trusted in the database (review's own).
  const reviewKeys = countedReviewKeys(u.config.mcp.review_keys, await trustedKeysOf(u.runtime))
    .keys;
  const toSign: CatalogEntry[] = [];
  const current: string[] = [];
  const skipped: { server: string; why: string }[] = [];
  for (const entry of u.catalog) {
    if (entry.config.transport !== "stdio") continue;
    const name = entry.config.name;
    const why = await notResignable(entry, reviewKeys);
    if (why === "current") current.push(name);
    else if (why) skipped.push({ server: name, why });
    else toSign.push(entry);
  }
  if (toSign.length && !o.yes) {
    if (!o.json) preview(ctx, toSign);
    const offTerminal = `sign --all would sign ${toSign.length} launch(es) under manifest v2${
      o.json ? " (run it without --json to see every env value it covers)" : " (above)"
    }: pass --yes to sign them; nothing was changed`;
    if (o.json) throw new EngramError("invalid_argument", offTerminal);
    if (
      !await confirmOnTerminal(ctx, {
        question:
          `sign these ${toSign.length} launch(es), env values as shown, with ${o.signer.reviewKey}? [y/N] `,
        offTerminal,
      })
    ) {
      ctx.out.line("nothing signed; nothing was changed");
      return EXIT.error;
    }
  }
  const signed: Signed[] = [];
  for (const entry of toSign) signed.push(await resign(u, { entry, signer: o.signer }));
  const counts = await carryApprovals(
    u,
    u.catalog.map((e) => e.config).filter((s): s is StdioServerConfig =>
      s.transport === "stdio" &&
      (signed.some((x) => x.server === s.name) || current.includes(s.name))
    ),
  );
  for (const s of signed) s.carried = counts.get(s.server) ?? 0;
  const trusted = reviewKeys.includes(o.signer.reviewKey);
  if (o.json) {
    ctx.out.json({ signed, current, skipped, key_trusted: trusted });
    return 0;
  }
  report(ctx, { signed, current, skipped });
  if (!trusted) {
    ctx.out.warn(
      `note: this key is not in mcp.review_keys yet, so the signatures will not count until you add: "${o.signer.reviewKey}"`,
    );
  }
  return 0;
}

/** Every launch about to be signed, each env value as written (a `${VAR}` verbatim). */
function preview(ctx: CommandContext, entries: readonly CatalogEntry[]): void {
  const shown = (v: unknown) => terminalSafeJson(JSON.stringify(v));
  ctx.out.line("to sign under manifest v2 (it covers every env value below, as written):");
  for (const entry of entries) {
    const s = entry.config as StdioServerConfig;
    const at = entry.yaml.name;
    ctx.out.line(
      `${s.name} (${entry.origin === "yaml" && at ? `${at.file}:${at.line}` : entry.origin}):`,
    );
    ctx.out.line(`  command: ${shown(s.command)} ${shown(s.args)}`);
    const env = Object.entries(s.env);
    if (env.length === 0) ctx.out.line("  env:     (none)");
    for (const [k, v] of env) ctx.out.line(`  env ${shown(k)}: ${shown(v)}`);
    ctx.out.line(`  cwd:     ${s.cwd === undefined ? "its own sandbox directory" : shown(s.cwd)}`);
    ctx.out.line(`  sandbox: ${s.sandbox_profile}; network: ${s.network ? "on" : "off"}`);
  }
}

/**
 * Why a server is not signed again: "current" when a trusted key already signed it under v2;
 * a reason to review it when no trusted key signed this launch; null when it is signed again.
 */
async function notResignable(
  entry: CatalogEntry,
  reviewKeys: readonly string[],
): Promise<string | null> {
  const server = entry.config as StdioServerConfig;
  const review = `review it: engram mcp review ${server.name}`;
  if (entry.problem) return `its stored definition is not usable (${entry.problem})`;
  if (typeof server.command !== "string" || commandChecks(server.command).some((c) => !c.ok)) {
    return `its command is not one plain executable; fix it, then ${review}`;
  }
  if (!server.manifest_signature) return `it was never signed; ${review}`;
  // Manifest v1 covered neither env values nor allow_env: what steers a loader is looked at anew.
  const loaders = Object.keys(server.env).filter((k) => loaderKey(k));
  const allowEnv = server.allow_env ?? [];
  if (loaders.length || allowEnv.length) {
    return `${
      loaders.length
        ? `its env has ${loaders.join(", ")}, which steer${
          loaders.length > 1 ? "" : "s"
        } a loader or interpreter`
        : `its allow_env names ${allowEnv.join(", ")}`
    }, so sign --all leaves it for a review that shows those values; ${review}`;
  }
  if (reviewKeys.length === 0) {
    return "no review key is trusted (mcp.review_keys is empty and none is trusted in the database), so no earlier signature counts";
  }
  const launch = { ...server, command: server.command };
  const signature = { signature: server.manifest_signature, reviewKeys };
  if (await findSigner(await manifestDigest(launch), signature)) {
    return server.manifest_digest === await manifestDigest(launch) ? "current" : null;
  }
  if (await findSigner(await manifestDigestV1(launch), signature)) return null;
  return `its signature is not one of this launch by a key in mcp.review_keys (changed since it was signed?); ${review}`;
}

/** Signs one server under v2: stored servers get it stored; YAML ones get lines to paste. */
async function resign(
  u: UpstreamSetup,
  o: { entry: CatalogEntry; signer: ReviewSigner },
): Promise<Signed> {
  const server = o.entry.config as StdioServerConfig;
  const digest = await manifestDigest(server);
  const signature = await signDigest(digest, o.signer);
  const stored = o.entry.origin !== "yaml";
  if (stored) {
    await u.runtime.upstreams.setUpstreamDefinition(server.name, {
      ...o.entry.state!.definition,
      manifest_digest: digest,
      manifest_signature: signature,
    });
  }
  const at = o.entry.yaml.name;
  return {
    server: server.name,
    manifest_digest: digest,
    manifest_signature: signature,
    stored,
    ...(stored
      ? {}
      : { file: at ? `${at.file}:${at.line}` : u.config.configFile ?? "the config file" }),
    env: { ...server.env },
    carried: 0,
  };
}

function report(
  ctx: CommandContext,
  o: { signed: Signed[]; current: string[]; skipped: { server: string; why: string }[] },
): void {
  for (const s of o.signed) {
    const env = Object.entries(s.env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
    ctx.out.line(
      `${s.server}: signed under manifest v2, covering env ${
        env || "(none)"
      }; ${s.carried} approval(s) carried over`,
    );
    if (s.stored) {
      ctx.out.line(`  stored in the imported entry of ${s.server}`);
      continue;
    }
    ctx.out.line(`  paste into the entry of ${s.server} (${s.file}):`);
    ctx.out.line(`      manifest_digest: "${s.manifest_digest}"`);
    ctx.out.line(`      manifest_signature: "${s.manifest_signature}"`);
  }
  for (const name of o.current) ctx.out.line(`${name}: already signed under manifest v2`);
  for (const s of o.skipped) ctx.out.line(`${s.server}: not signed: ${s.why}`);
  if (o.signed.length + o.current.length + o.skipped.length === 0) {
    ctx.out.line("no stdio server is configured");
  }
}

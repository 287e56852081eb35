/**
 * @module Steps 3 and 4 of `engram mcp review` as changes of state
 * (docs/upstream.md#review-from-import-to-an-exposed-tool): the command added to the server's own
 * allowlist (`stdio_allowed_commands` of its entry) and the launch signed with the operator's
 * review key, unless a counted key signed this very launch already; then consent and enabling.
 * An imported or marketplace server gets it all stored; a server of the config file gets the
 * lines to paste into its entry instead, and nothing of it changes until they are there.
 */
import {
  type McpServerConfig,
  McpServerSchema,
  type StdioServerConfig,
} from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import { countedReviewKeys } from "../../../mcp/client/launch/launch_facts.ts";
import { manifestDigest } from "../../../mcp/client/launch/launch_manifest.ts";
import { findSigner, signDigest } from "../../../mcp/client/launch/review_keys.ts";
import { type CatalogEntry, changeState } from "../../../mcp/client/upstream_catalog.ts";
import type { CommandContext } from "../../context.ts";
import { trustedKeysOf, type UpstreamSetup } from "../../upstreams.ts";
import { signingKey } from "./review_keys_trust.ts";
import { carryApprovals } from "./sign_all.ts";

/** What step 3 did: the changes made, the digest of the launch, and lines to paste (YAML). */
export interface SignOutcome {
  changes: string[];
  digest: string;
  paste: string[];
}

/** Step 3: allowlist the command and sign the launch `planned` (the entry with step 2's choice). */
export async function signStep(
  u: UpstreamSetup,
  o: { ctx: CommandContext; entry: CatalogEntry; planned: StdioServerConfig & { command: string } },
): Promise<SignOutcome> {
  const { entry, planned } = o;
  const name = entry.config.name;
  const command = planned.command;
  const listed = u.config.mcp.stdio_allowed_commands.includes(command) ||
    planned.stdio_allowed_commands.includes(command);
  let launch: StdioServerConfig = listed
    ? planned
    : { ...planned, stdio_allowed_commands: [...planned.stdio_allowed_commands, command] };
  const digest = await manifestDigest(launch);
  const keys = countedReviewKeys(u.config.mcp.review_keys, await trustedKeysOf(u.runtime)).keys;
  const signed = launch.manifest_digest === digest && launch.manifest_signature !== undefined &&
    await findSigner(digest, { signature: launch.manifest_signature, reviewKeys: keys }) !== null;
  const changes: string[] = [];
  const planning: string[] = [];
  if (!listed) planning.push(`added ${JSON.stringify(command)} to its stdio_allowed_commands`);
  if (!signed) {
    const key = await signingKey(u, { ctx: o.ctx, server: name });
    changes.push(...key.changes);
    launch = {
      ...launch,
      manifest_digest: digest,
      manifest_signature: await signDigest(digest, key.signer),
    };
    planning.push(`signed the launch (manifest v2, ${digest}) with ${key.signer.reviewKey}`);
  }
  if (entry.origin === "yaml") {
    return { changes, digest, paste: pasteLines(entry.config as StdioServerConfig, launch) };
  }
  if (planning.length || launchMoved(entry.config as StdioServerConfig, launch)) {
    await u.runtime.upstreams.setUpstreamDefinition(name, storedDefinition(entry, launch));
    // docs/upstream.md#upgrading-from-manifest-v1: approvals of an unchanged launch move with it.
    await carryApprovals(u, [launch]);
    changes.push(...planning);
  }
  return { changes, digest, paste: [] };
}

/** Whether the launch keys review sets differ (the choice of step 2 alone changes them too). */
function launchMoved(before: StdioServerConfig, after: StdioServerConfig): boolean {
  return pasteLines(before, after).length > 0;
}

/** The stored definition with the reviewed launch keys; checked like a config entry. */
function storedDefinition(entry: CatalogEntry, launch: StdioServerConfig): Record<string, unknown> {
  const { cwd: _cwd, ...rest } = entry.state!.definition!;
  const definition = {
    ...rest,
    sandbox_profile: launch.sandbox_profile,
    network: launch.network,
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
    stdio_allowed_commands: launch.stdio_allowed_commands,
    manifest_digest: launch.manifest_digest,
    manifest_signature: launch.manifest_signature,
  };
  const parsed = McpServerSchema.safeParse({ ...definition, name: entry.config.name });
  if (!parsed.success) {
    throw new EngramError(
      "invalid_argument",
      `the reviewed entry of ${entry.config.name} is not valid: ${
        parsed.error.issues[0]?.message ?? "invalid"
      }; change the flags`,
    );
  }
  return definition;
}

/** The YAML lines that make a config-file entry `before` into `after` (review's keys only). */
function pasteLines(before: StdioServerConfig, after: StdioServerConfig): string[] {
  const lines: string[] = [];
  const keys = [
    "sandbox_profile",
    "network",
    "cwd",
    "stdio_allowed_commands",
    "manifest_digest",
    "manifest_signature",
  ] as const;
  for (const key of keys) {
    const a = after[key];
    if (JSON.stringify(before[key]) === JSON.stringify(a)) continue;
    lines.push(a === undefined ? `# remove ${key}` : `${key}: ${JSON.stringify(a)}`);
  }
  return lines;
}

/**
 * Step 4's state: consent approved and enabled (or, with `enable: false`, disabled again). A key
 * the config file sets (or any key of a config entry that overrides an import) becomes a line to
 * paste; with any line to paste (`paste` from step 3 included), nothing changes.
 */
export async function stateStep(
  u: UpstreamSetup,
  o: { entry: CatalogEntry; paste: string[]; enable: boolean },
): Promise<{ entry: CatalogEntry; paste: string[]; changes: string[] }> {
  const { entry } = o;
  const c: McpServerConfig = entry.config;
  const want: { key: "client_consent" | "enabled"; value: string | boolean; now: unknown }[] =
    o.enable
      ? [
        { key: "client_consent", value: "approved", now: c.client_consent },
        { key: "enabled", value: true, now: c.enabled },
      ]
      : [{ key: "enabled", value: false, now: c.enabled }];
  const todo = want.filter((w) => w.now !== w.value);
  const inFile = (key: string) => entry.origin === "yaml" && (entry.yaml[key] || entry.overrides);
  const paste = [
    ...o.paste,
    ...todo.filter((w) => inFile(w.key)).map((w) => `${w.key}: ${JSON.stringify(w.value)}`),
  ];
  if (paste.length) return { entry, paste, changes: [] };
  const changes: string[] = [];
  for (const w of todo) {
    await changeState(entry, u.runtime.upstreams, { [w.key]: w.value });
    changes.push(`${w.key}: ${w.now} → ${w.value}`);
  }
  return { entry, paste: [], changes };
}

/**
 * @module Test set-up for commands that reach upstream servers: a data dir whose
 * config/engram.yaml lists fixture servers that pass every launch rule (allowlisted, signed by a
 * review key of the config, consent approved, standard sandbox), and a runner for `engram mcp …`.
 */
import { StdioServerSchema } from "../../src/config/mcp_servers.ts";
import { manifestDigest } from "../../src/mcp/client/launch_manifest.ts";
import { base64, type ReviewSigner, signDigest } from "../../src/mcp/client/review_keys.ts";
import { type CliResult, runEngram, tempDir } from "../helpers.ts";

/** The fixture upstreams. */
export const FIXTURE = (name: string) =>
  new URL(`../fixtures/upstream/${name}.ts`, import.meta.url).pathname;

/** One fixture server to configure. */
export interface FixtureServer {
  name: string;
  /** Fixture file name without `.ts` (e.g. `well_behaved`). */
  fixture: string;
  /** Extra args after the script. */
  args?: string[];
  /** Deno permissions for the fixture (default none). */
  allow?: string[];
  env?: Record<string, string>;
  /** Extra YAML lines for the entry (indented six spaces), e.g. `expose: { tier: read }`. */
  extra?: string[];
}

/** A fresh review key pair. */
async function signer(): Promise<ReviewSigner> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { key: pair.privateKey, reviewKey: `ed25519:${base64(raw)}` };
}

/** The well-behaved fixture's changes come from engram's environment; empty: as first published. */
export const NO_CHANGES = { UPSTREAM_CHANGES: "" };

/** The well-behaved fixture as server `files`, its changes (UPSTREAM_CHANGES) set per test run. */
export const WELL: FixtureServer = {
  name: "files",
  fixture: "well_behaved",
  allow: ["--allow-env=UPSTREAM_CHANGES"],
  env: { UPSTREAM_CHANGES: "${UPSTREAM_CHANGES}" },
};

/** The YAML of `servers`, each signed, plus `mcpExtra` lines under `mcp:`. */
export async function signedConfig(
  servers: readonly FixtureServer[],
  mcpExtra: string[] = [],
): Promise<string> {
  const key = await signer();
  const entries: string[] = [];
  for (const s of servers) {
    const args = ["run", "-q", ...(s.allow ?? []), FIXTURE(s.fixture), ...(s.args ?? [])];
    const config = StdioServerSchema.parse({
      name: s.name,
      transport: "stdio",
      command: "deno",
      args,
      env: s.env ?? {},
      sandbox_profile: "standard",
    });
    const digest = await manifestDigest(config);
    entries.push(
      `    - name: ${s.name}`,
      "      transport: stdio",
      "      command: deno",
      `      args: ${JSON.stringify(args)}`,
      ...(s.env ? [`      env: ${JSON.stringify(s.env)}`] : []),
      "      sandbox_profile: standard",
      "      client_consent: approved",
      `      manifest_digest: "${digest}"`,
      `      manifest_signature: "${await signDigest(digest, key)}"`,
      ...(s.extra ?? []).map((l) => `      ${l}`),
    );
  }
  return [
    "mcp:",
    "  stdio_allowed_commands: [deno]",
    `  review_keys: ["${key.reviewKey}"]`,
    "  request_timeout_ms: 10000",
    ...mcpExtra.map((l) => `  ${l}`),
    "  mcp_servers:",
    ...entries,
    "",
  ].join("\n");
}

/**
 * A data dir with that config; `run` runs `engram mcp …` there, in an environment holding
 * `options.env` and then the call's own `env`.
 */
export async function upstreamSetup(
  servers: readonly FixtureServer[],
  options: { mcpExtra?: string[]; env?: Record<string, string> } = {},
) {
  const dir = await tempDir("engram-upstream-");
  await Deno.mkdir(`${dir.path}/config`);
  await Deno.writeTextFile(
    `${dir.path}/config/engram.yaml`,
    await signedConfig(servers, options.mcpExtra),
  );
  return {
    dir: dir.path,
    run: (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
      runEngram(["mcp", ...args], { dataDir: dir.path, env: { ...options.env, ...env } }),
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

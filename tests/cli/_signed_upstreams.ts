/**
 * @module Test set-up for commands that reach upstream servers: a data dir whose
 * config/engram.yaml lists fixture servers that pass every launch rule (allowlisted, signed by a
 * review key of the config, consent approved, standard sandbox), and a runner for `engram mcp …`.
 */
import assert from "node:assert/strict";
import type { ApprovedKind } from "../../src/core/ports/approval_store.ts";
import type { Tier } from "../../src/core/types.ts";
import { type CliResult, runEngram, tempDir } from "../helpers.ts";
import type { StdioServerConfig } from "../../src/config/mcp_servers.ts";
import type { ReviewSigner } from "../../src/mcp/client/launch/review_keys.ts";
import { signed, signedV1, stdioServer, testSigner } from "../mcp/client/launch_setup.ts";

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

/** The well-behaved fixture's changes come from engram's environment; empty: as first published. */
export const NO_CHANGES = { UPSTREAM_CHANGES: "" };

/** The well-behaved fixture as server `files`, its changes (UPSTREAM_CHANGES) set per test run. */
export const WELL: FixtureServer = {
  name: "files",
  fixture: "well_behaved",
  allow: ["--allow-env=UPSTREAM_CHANGES"],
  env: { UPSTREAM_CHANGES: "${UPSTREAM_CHANGES}" },
};

/** The launch of a fixture server as signedConfig writes it (what its manifest digests). */
export function fixtureLaunch(s: FixtureServer): StdioServerConfig {
  return stdioServer({
    name: s.name,
    command: "deno",
    args: ["run", "-q", ...(s.allow ?? []), FIXTURE(s.fixture), ...(s.args ?? [])],
    env: s.env ?? {},
    sandbox_profile: "standard",
  });
}

/**
 * The YAML of `servers`, each signed, plus `mcpExtra` lines under `mcp:`. `how.signer` signs (a
 * fresh key by default); `how.manifest: 1` signs as engram did before manifest v2.
 */
export async function signedConfig(
  servers: readonly FixtureServer[],
  mcpExtra: string[] = [],
  how: { signer?: ReviewSigner; manifest?: 1 | 2 } = {},
): Promise<string> {
  const key = how.signer ?? await testSigner();
  const sign = how.manifest === 1 ? signedV1 : signed;
  const entries: string[] = [];
  for (const s of servers) {
    const launch = await sign(fixtureLaunch(s), key);
    const args = launch.args;
    entries.push(
      `    - name: ${s.name}`,
      "      transport: stdio",
      "      command: deno",
      `      args: ${JSON.stringify(args)}`,
      ...(s.env ? [`      env: ${JSON.stringify(s.env)}`] : []),
      "      sandbox_profile: standard",
      "      client_consent: approved",
      `      manifest_digest: "${launch.manifest_digest}"`,
      `      manifest_signature: "${launch.manifest_signature}"`,
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
 * A data dir whose `config/engram.yaml` holds `yaml`; `run` runs `engram mcp …` there, in an
 * environment holding `options.env` and then the call's own `env`.
 */
export async function configSetup(
  yaml: string,
  options: { env?: Record<string, string> } = {},
) {
  const dir = await tempDir("engram-upstream-");
  await Deno.mkdir(`${dir.path}/config`);
  await Deno.writeTextFile(`${dir.path}/config/engram.yaml`, yaml);
  return {
    dir: dir.path,
    run: (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
      runEngram(["mcp", ...args], { dataDir: dir.path, env: { ...options.env, ...env } }),
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

/**
 * A data dir with the signed config of `servers` (see configSetup); `approve` approves tools of
 * a server, each exposed at its tier (`null`: approved, not exposed), failing on a refusal.
 */
export async function upstreamSetup(
  servers: readonly FixtureServer[],
  options: {
    mcpExtra?: string[];
    env?: Record<string, string>;
    signer?: ReviewSigner;
    manifest?: 1 | 2;
  } = {},
) {
  const setup = await configSetup(
    await signedConfig(servers, options.mcpExtra, options),
    options,
  );
  const approve = async (
    server: string,
    tiers: Record<string, Tier | null>,
    how: { kind?: ApprovedKind } = {},
  ): Promise<void> => {
    for (const [name, tier] of Object.entries(tiers)) {
      const r = await setup.run([
        "approvals",
        "approve",
        server,
        name,
        ...(how.kind ? ["--kind", how.kind] : []),
        ...(tier ? ["--expose", tier] : []),
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
  };
  return { ...setup, approve };
}

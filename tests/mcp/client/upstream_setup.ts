/**
 * @module Shared set-up for the upstream session tests: fixture servers as launchable (signed,
 * approved, allowlisted) stdio configs, facts for a temp data dir, and a signer per test module.
 */
import type { McpServerConfig, StdioServerConfig } from "../../../src/config/mcp_servers.ts";
import { HttpServerSchema } from "../../../src/config/mcp_servers.ts";
import type { LineIO } from "../../../src/mcp/client/nested/elicitation_prompt.ts";
import type { LaunchFacts } from "../../../src/mcp/client/launch/launch_rules.ts";
import type { ReviewSigner } from "../../../src/mcp/client/launch/review_keys.ts";
import { tempDir } from "../../helpers.ts";
import { resultText } from "../../sdk_waits.ts";
import { launchable, testFacts, testSigner } from "./launch_setup.ts";

/** The fixture upstreams' directory. */
export const FIXTURES = new URL("../../fixtures/upstream/", import.meta.url).pathname;

/** How a fixture server is launched. */
export interface FixtureLaunch {
  /** The fixture's own flags. */
  args?: string[];
  /** A token put on the command line (as `--seed N`), so `ps` can find the process. */
  mark?: string;
  /** The fixture file's path, when not the one in tests/fixtures/upstream. */
  file?: string;
  /** Other config keys. */
  config?: Partial<Record<keyof StdioServerConfig, unknown>>;
}

/** A signed, runnable stdio config for fixture `fixture` (e.g. "well_behaved"). */
export async function fixtureServer(
  signer: ReviewSigner,
  name: string,
  fixture: string,
  launch: FixtureLaunch = {},
): Promise<StdioServerConfig> {
  const file = launch.file ?? `${FIXTURES}${fixture}.ts`;
  return await launchable(signer, {
    args: [
      "run",
      "-q",
      ...(launch.mark ? ["--seed", launch.mark] : []),
      ...(launch.file ? ["--config", DENO_JSON] : []),
      file,
      ...(launch.args ?? []),
    ],
    ...launch.config,
    name,
    command: "deno",
  });
}

/** The repo's deno.json (a fixture copied elsewhere still resolves its imports with it). */
export const DENO_JSON = new URL("../../../deno.json", import.meta.url).pathname;

/** An HTTP or SSE server entry for `url`, approved. */
export function remoteServer(
  name: string,
  transport: "http" | "sse",
  url: string,
  extra: Record<string, unknown> = {},
): McpServerConfig {
  return HttpServerSchema.parse({ name, transport, url, client_consent: "approved", ...extra });
}

/** A temp data dir, a review key, and launch facts that trust it. */
export async function upstreamWorld(
  options: { vars?: Record<string, string> } = {},
): Promise<
  { dir: string; signer: ReviewSigner; facts: LaunchFacts } & AsyncDisposable
> {
  const dir = await tempDir("engram-upstream-");
  const signer = await testSigner();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey], vars: options.vars });
  return { dir: dir.path, signer, facts, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

/** The text of a tool result (its text contents, joined; every caller's result has one). */
export const textOf: (result: unknown) => string = resultText;

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  const outcome = await promise.then((v) => ({ ok: true, v }), (e) => ({ ok: false, e }));
  if (outcome.ok) throw new Error(`expected a rejection, got ${JSON.stringify(outcome)}`);
  return (outcome as { e: Error & { code?: string } }).e;
}

/**
 * Which of `pids` still exist in any state — running, or exited but never reaped (a zombie keeps
 * its pid but loses its command line, so it is checked by pid), from `ps`.
 */
export function leftovers(pids: readonly number[]): string[] {
  if (pids.length === 0) return [];
  const out = new Deno.Command("ps", {
    args: ["-o", "pid=,stat=", "-p", pids.join(",")],
    stdout: "piped",
  }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n").map((l) => l.trim()).filter(Boolean);
}

/** A terminal that answers with `lines` in order (then end of input), recording what was shown. */
export function scriptedTerminal(lines: string[]): LineIO & { output(): string } {
  const queue = [...lines];
  let shown = "";
  return {
    readLine: () => Promise.resolve(queue.length ? queue.shift()! : null),
    write: (text) => void (shown += text),
    output: () => shown,
  };
}

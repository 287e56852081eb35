/** @module Shared set-up for the governed-client launch tests: signed server configs, facts, probes. */
import { envFrom } from "../../../src/config/env.ts";
import { type StdioServerConfig, StdioServerSchema } from "../../../src/config/mcp_servers.ts";
import { gatherLaunchFacts } from "../../../src/mcp/client/launch/launch_facts.ts";
import {
  manifestDigest,
  manifestDigestV1,
} from "../../../src/mcp/client/launch/launch_manifest.ts";
import type { LaunchFacts } from "../../../src/mcp/client/launch/launch_rules.ts";
import {
  base64,
  type ReviewSigner,
  signDigest,
} from "../../../src/mcp/client/launch/review_keys.ts";
import {
  probeBubblewrap,
  type SandboxProbe,
  VISIBLE_DIRS,
  visibleInSandbox,
} from "../../../src/mcp/client/launch/sandbox.ts";

/** The tree_server fixture. */
export const TREE_SERVER = new URL("../../fixtures/upstream/tree_server.ts", import.meta.url)
  .pathname;
/** The fixtures directory holding it (a restricted server's read-only cwd). */
export const UPSTREAM_DIR = new URL("../../fixtures/upstream", import.meta.url).pathname;

/** Whether bubblewrap runs here; tests that need it are ignored with this reason printed. */
export const BWRAP: SandboxProbe = await probeBubblewrap({ path: Deno.env.get("PATH") });
if (!BWRAP.ok) console.log(`skipping bubblewrap tests: ${BWRAP.reason}`);

/** This Deno, by its (real) path: what the tests start tree_server with inside the sandbox. */
export const TEST_DENO = Deno.execPath();

/**
 * Why the restricted sandbox cannot show TEST_DENO, or null when it can: it shows the system
 * folders and the server's cwd (here the fixtures), so a Deno from a node_modules folder is not
 * there, and the tests that start it inside are ignored with this reason printed.
 */
export const DENO_HIDDEN: string | null = visibleInSandbox(
    { path: TEST_DENO, realPath: Deno.realPathSync(TEST_DENO) },
    // The sandbox dir lies under each test's own temp data dir, where Deno never is.
    { sandboxDir: "/nonexistent/sandboxes/test", cwd: UPSTREAM_DIR },
  )
  ? null
  : `Deno at ${TEST_DENO} is outside the folders the restricted sandbox shows (${VISIBLE_DIRS}); install Deno under /usr to run them`;
if (BWRAP.ok && DENO_HIDDEN) {
  console.log(`skipping restricted-sandbox tests that start Deno: ${DENO_HIDDEN}`);
}

/** A fresh in-memory review key pair. */
export async function testSigner(): Promise<ReviewSigner> {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { key: pair.privateKey, reviewKey: `ed25519:${base64(raw)}` };
}

/** A stdio server entry from partial YAML-like input, with the schema's defaults. */
export function stdioServer(
  entry: Partial<Record<keyof StdioServerConfig, unknown>> & { name: string; command: string },
): StdioServerConfig {
  return StdioServerSchema.parse({ transport: "stdio", ...entry });
}

/** The same server with its manifest digest and a signature by `signer`. */
export async function signed(
  server: StdioServerConfig,
  signer: ReviewSigner,
): Promise<StdioServerConfig> {
  const digest = await manifestDigest(server);
  return {
    ...server,
    manifest_digest: digest,
    manifest_signature: await signDigest(digest, signer),
  };
}

/**
 * The same server signed as engram signed launches before manifest v2: the v1 digest (env names
 * only) and a signature of it, as a config or database written by an older engram holds them.
 */
export async function signedV1(
  server: StdioServerConfig,
  signer: ReviewSigner,
): Promise<StdioServerConfig> {
  const digest = await manifestDigestV1(server);
  return {
    ...server,
    manifest_digest: digest,
    manifest_signature: await signDigest(digest, signer),
  };
}

/** A server that passes every rule under `standard`: allowlisted, signed, approved, enabled. */
export async function launchable(
  signer: ReviewSigner,
  entry: Partial<Record<keyof StdioServerConfig, unknown>> & { name: string; command: string },
): Promise<StdioServerConfig> {
  return await signed(
    stdioServer({
      sandbox_profile: "standard",
      client_consent: "approved",
      stdio_allowed_commands: [entry.command],
      ...entry,
    }),
    signer,
  );
}

/** Launch facts for a test data dir; engram's environment holds secrets that must not leak. */
export async function testFacts(
  dataDir: string,
  options: { reviewKeys: string[]; sandbox?: SandboxProbe; vars?: Record<string, string> },
): Promise<LaunchFacts> {
  const env = envFrom({
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? dataDir,
    LANG: "C.UTF-8",
    ENGRAM_DATA_DIR: dataDir,
    ENGRAM_TOKEN: "engram-secret-token",
    OPENAI_API_KEY: "sk-should-never-leak",
    ...options.vars,
  });
  return await gatherLaunchFacts(
    { review_keys: options.reviewKeys, stdio_allowed_commands: [] },
    { env, dataDir, sandbox: options.sandbox ?? BWRAP },
  );
}

/**
 * Pids of live processes whose command line holds `token`, from `ps` (Deno lets only a process with
 * every permission read /proc, and the test task runs without --allow-all). Zombies are not live.
 */
export function processesWith(token: string): number[] {
  const out = new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="], stdout: "piped" })
    .outputSync();
  const found: number[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m || m[2].startsWith("Z") || !m[3].includes(token)) continue;
    // `ps` itself lists our own command line only when it holds the token, which it never does.
    found.push(Number(m[1]));
  }
  return found;
}

/** Waits until no live process holds `token`, up to `ms`; returns the ones left. */
export async function goneWithin(token: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processesWith(token);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    left = processesWith(token);
  }
  return left;
}

/** Reads JSON lines from a byte stream, one at a time. */
export function jsonLines(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<Record<string, unknown>> {
      while (!buffer.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; partial: ${buffer}`);
        buffer += value;
      }
      const nl = buffer.indexOf("\n");
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      return JSON.parse(line);
    },
    async close() {
      await reader.cancel().catch(() => {});
    },
  };
}

/** A random token of digits (the grandchild's `sleep 1000.<token>`). */
export function token(): string {
  return String(Math.floor(Math.random() * 1e9)).padStart(9, "1");
}

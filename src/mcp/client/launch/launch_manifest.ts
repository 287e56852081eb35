/**
 * @module The launch manifest of a stdio server: what a reviewer signs. Its canonical form is the
 * RFC 8785 (JCS) JSON of `{command, args, env_keys, cwd, sandbox_profile, network}`; the digest
 * is `sha256:<hex>` of that text's UTF-8 bytes. Env values are left out on purpose: they hold
 * secrets that change without changing what runs.
 */
import canonicalize from "canonicalize";
import type { SandboxProfile, StdioServerConfig } from "../../../config/mcp_servers.ts";
import { sha256Hex } from "../../../core/hash.ts";

/** The fields of a stdio server that decide what runs. */
export interface LaunchManifest {
  /** As configured; a list-valued command is digested as a list (and blocked by the rules). */
  command: string | string[];
  args: string[];
  /** The names of the configured env variables, sorted. */
  env_keys: string[];
  /** The configured working directory as written, or null for the server's sandbox directory. */
  cwd: string | null;
  sandbox_profile: SandboxProfile;
  network: boolean;
}

/** The parts of a server config that go into its manifest. */
export type ManifestSource = Pick<
  StdioServerConfig,
  "command" | "args" | "env" | "cwd" | "sandbox_profile" | "network"
>;

/** The manifest of a server config. */
export function launchManifest(server: ManifestSource): LaunchManifest {
  return {
    command: typeof server.command === "string" ? server.command : [...server.command],
    args: [...server.args],
    // Sorted by UTF-16 code units, the order JCS itself uses for keys.
    env_keys: Object.keys(server.env).sort(),
    cwd: server.cwd ?? null,
    sandbox_profile: server.sandbox_profile,
    network: server.network,
  };
}

/** RFC 8785 canonical JSON of any JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("a launch manifest must be a JSON value");
  return text;
}

/** `sha256:<hex>` of the canonical manifest's UTF-8 bytes (a promise: callers await it). */
export function manifestDigest(server: ManifestSource): Promise<string> {
  return Promise.resolve(`sha256:${sha256Hex(canonicalJson(launchManifest(server)))}`);
}

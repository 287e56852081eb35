/**
 * @module The launch manifest of a stdio server: what a reviewer signs (docs/upstream.md#the-format).
 * Version 2 is the RFC 8785 (JCS) JSON of `{v, command, args, env, allow_env, cwd,
 * sandbox_profile, network}`, env values as written in the config (a `${VAR}` reference verbatim,
 * never its expansion); the digest is `sha256:<hex>` of that text's UTF-8 bytes. Version 1 signed
 * env names only, so a changed value (`NODE_OPTIONS=--require ./evil.cjs`) kept its signature; its
 * digest is still computed, only to recognise launches signed before version 2 and carry their
 * approvals over (docs/upstream.md#upgrading-from-manifest-v1).
 */
import canonicalize from "canonicalize";
import type { SandboxProfile, StdioServerConfig } from "../../../config/mcp_servers.ts";
import { sha256Hex } from "../../../core/hash.ts";

/** The manifest version engram signs and verifies. */
export const MANIFEST_VERSION = 2;

/** The fields of a stdio server that decide what runs (manifest version 2). */
export interface LaunchManifest {
  v: typeof MANIFEST_VERSION;
  /** As configured; a list-valued command is digested as a list (and blocked by the rules). */
  command: string | string[];
  args: string[];
  /** Every configured env variable with its value as written (`${VAR}` kept, never expanded). */
  env: Record<string, string>;
  /** The loader keys this server may set (docs/upstream.md#launch-rules), sorted, no repeats. */
  allow_env: string[];
  /** The configured working directory as written, or null for the server's sandbox directory. */
  cwd: string | null;
  sandbox_profile: SandboxProfile;
  network: boolean;
}

/** The parts of a server config that go into its manifest (`allow_env` defaults to none). */
export type ManifestSource =
  & Pick<StdioServerConfig, "command" | "args" | "env" | "cwd" | "sandbox_profile" | "network">
  & { allow_env?: readonly string[] };

/** The manifest (version 2) of a server config. */
export function launchManifest(server: ManifestSource): LaunchManifest {
  return {
    v: MANIFEST_VERSION,
    command: typeof server.command === "string" ? server.command : [...server.command],
    args: [...server.args],
    env: { ...server.env },
    // Sorted by UTF-16 code units, the order JCS itself uses for keys.
    allow_env: [...new Set(server.allow_env ?? [])].sort(),
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

/**
 * The version 1 digest: `{command, args, env_keys, cwd, sandbox_profile, network}` with env names
 * only. Never a reason to start anything; it only recognises a signature made before version 2.
 */
export function manifestDigestV1(server: ManifestSource): Promise<string> {
  const v1 = {
    command: typeof server.command === "string" ? server.command : [...server.command],
    args: [...server.args],
    env_keys: Object.keys(server.env).sort(),
    cwd: server.cwd ?? null,
    sandbox_profile: server.sandbox_profile,
    network: server.network,
  };
  return Promise.resolve(`sha256:${sha256Hex(canonicalJson(v1))}`);
}

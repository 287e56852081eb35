/**
 * @module Gathers the facts the launch rules judge against: the review keys (those of the config,
 * or — while it lists none — those trusted through the database) and global allowlist from the
 * config, Deno's run permissions, command locations on PATH, and one sandbox probe
 * (bubblewrap, and pasta around it for `network: true`).
 * Gather once per process (or per doctor run) and reuse: the probe starts a process.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import { REVIEWED_LAUNCHERS } from "../../../config/permissions.ts";
import { grantedRunList, runAllowed } from "./allow_run.ts";
import { locateCommand } from "./command_path.ts";
import type { LaunchFacts } from "./launch_rules.ts";
import { probeSandbox, type SandboxProbe } from "./sandbox.ts";

/** The `mcp:` settings the rules read. */
export interface LaunchSettings {
  review_keys: readonly string[];
  stdio_allowed_commands: readonly string[];
}

/**
 * The review keys whose signatures count: `mcp.review_keys` when it lists any — a team's list is
 * the whole of it — else the keys trusted through the database (the operator's own review key,
 * docs/upstream.md#review-from-import-to-an-exposed-tool).
 */
export function countedReviewKeys(
  configured: readonly string[],
  trusted: readonly string[] = [],
): { keys: readonly string[]; source: "config" | "database" } {
  return configured.length
    ? { keys: configured, source: "config" }
    : { keys: trusted, source: "database" };
}

/**
 * Facts for the launch rules. `sandbox` skips the probe (tests, or no restricted server);
 * `configFile` names the config file in messages; `trustedKeys` are the review keys trusted
 * through the database (counted only while `mcp.review_keys` is empty).
 */
export async function gatherLaunchFacts(
  mcp: LaunchSettings,
  options: {
    env: EnvSnapshot;
    dataDir: string;
    bwrap?: string;
    sandbox?: SandboxProbe;
    configFile?: string;
    trustedKeys?: readonly string[];
  },
): Promise<LaunchFacts> {
  const path = options.env.get("PATH");
  const locate = (command: string) => locateCommand(command, path);
  const sandbox = options.sandbox ?? await probeSandbox({ bwrap: options.bwrap, path });
  return {
    reviewKeys: countedReviewKeys(mcp.review_keys, options.trustedKeys).keys,
    allowedCommands: mcp.stdio_allowed_commands,
    env: options.env,
    dataDir: options.dataDir,
    sandbox,
    runAllowed,
    grantedRunList: grantedRunList({
      candidates: REVIEWED_LAUNCHERS,
      installed: (c) => locate(c) !== null,
    }),
    locate,
    isDirectory: (p) => {
      try {
        return Deno.statSync(p).isDirectory;
      } catch {
        return false;
      }
    },
    realPath: (p) => {
      try {
        return Deno.realPathSync(p);
      } catch {
        return null;
      }
    },
    ...(options.configFile ? { configFile: options.configFile } : {}),
  };
}

/**
 * @module The launch rules (CLIENT.md "Stdio launch safety"): an evaluation of one server config
 * against the facts of this machine, before anything starts. Every check is reported (doctor
 * prints each PASS/FAIL with its fix); the first failing one blocks the server, and only it.
 */
import type { EnvSnapshot } from "../../config/env.ts";
import {
  type HttpServerConfig,
  type McpServerConfig,
  type StdioServerConfig,
} from "../../config/mcp_servers.ts";
import { expandHome, joinPath } from "../../config/paths.ts";
import type { CommandLocation } from "./command_path.ts";
import { commandChecks, fail, type LaunchCheck, pass } from "./command_rules.ts";
import { expandValues } from "./launch_env.ts";
import { manifestDigest } from "./launch_manifest.ts";
import { findSigner } from "./review_keys.ts";
import { type SandboxProbe, VISIBLE_DIRS, visibleInSandbox } from "./sandbox.ts";

export type { LaunchCheck } from "./command_rules.ts";

/** What the rules need to know about this machine and this binary; gathered by launch_facts.ts. */
export interface LaunchFacts {
  /** `mcp.review_keys`. */
  reviewKeys: readonly string[];
  /** `mcp.stdio_allowed_commands`, the global reviewed allowlist. */
  allowedCommands: readonly string[];
  /** engram's environment: PATH for lookups, values for `${VAR}` references. */
  env: EnvSnapshot;
  /** The data directory; sandboxes live in `<data dir>/sandboxes/<server>`. */
  dataDir: string;
  /** Whether bubblewrap can run here (needed by `restricted` servers only). */
  sandbox: SandboxProbe;
  /** Whether Deno lets this binary spawn the command. */
  runAllowed(command: string): boolean;
  /** The shipped launchers Deno lets this binary spawn, for messages. */
  grantedRunList: readonly string[];
  /** Where a command resolves on this machine. */
  locate(command: string): CommandLocation | null;
  /** Whether a path is an existing directory. */
  isDirectory(path: string): boolean;
}

/** A stdio server as the rules accept it: a list-valued command (from any source) is refused. */
export type LaunchSubject =
  | (Omit<StdioServerConfig, "command"> & { command: string | readonly string[] })
  | HttpServerConfig;

/** Every check in order, and the first failing one, if any. */
export interface LaunchVerdict {
  server: string;
  checks: LaunchCheck[];
  blocked: LaunchCheck | null;
}

/** Evaluates every rule for one server. */
export async function evaluateLaunch(
  server: LaunchSubject | McpServerConfig,
  facts: LaunchFacts,
): Promise<LaunchVerdict> {
  const checks = server.transport === "stdio" ? await stdioChecks(server, facts) : [
    referenceCheck("headers", server.headers, facts.env),
    consentCheck(server),
    enabledCheck(server),
  ];
  return { server: server.name, checks, blocked: checks.find((c) => !c.ok) ?? null };
}

/** The one-line error for a blocked server: the rule, what is wrong, and the fix. */
export function blockedMessage(server: string, check: LaunchCheck): string {
  return `mcp server ${
    JSON.stringify(server)
  } is blocked by rule ${check.rule}: ${check.detail}; ${check.fix}`;
}

type StdioSubject = Extract<LaunchSubject, { transport: "stdio" }>;

async function stdioChecks(server: StdioSubject, facts: LaunchFacts): Promise<LaunchCheck[]> {
  const shape = commandChecks(server.command);
  // A single token free of metacharacters can be looked up and digested, even a blocked shell.
  const command = typeof server.command === "string" && shape[0].ok && shape[1].ok
    ? server.command
    : null;
  const location = command === null ? null : facts.locate(command);
  const cwd = server.cwd ? expandHome(server.cwd, facts.env) : undefined;
  return [
    ...shape,
    allowlistCheck(server, facts),
    foundCheck(command, location, facts),
    allowRunCheck(command, location, facts),
    cwdCheck(cwd, facts),
    ...await signatureChecks(server, command, facts),
    profileCheck(server),
    sandboxCheck(server, { location, cwd }, facts),
    referenceCheck("env", server.env, facts.env),
    consentCheck(server),
    enabledCheck(server),
  ];
}

/**
 * An entry matches only the exact command text: `npx` allows the npx found on PATH, not a file
 * called npx elsewhere (`/tmp/x/npx`), and `/usr/bin/node` allows only that path. Comparing by
 * basename would let any program with a reviewed name through.
 */
function allowlistCheck(server: StdioSubject, facts: LaunchFacts): LaunchCheck {
  const rule = "allowlist";
  const text = typeof server.command === "string" ? server.command : JSON.stringify(server.command);
  if (facts.allowedCommands.includes(text)) {
    return pass(rule, `command ${JSON.stringify(text)} is in mcp.stdio_allowed_commands`);
  }
  if (server.stdio_allowed_commands.includes(text)) {
    return pass(rule, `command ${JSON.stringify(text)} is in the server's stdio_allowed_commands`);
  }
  return fail(
    rule,
    `command ${JSON.stringify(text)} has no reviewed allowlist entry`,
    "after reviewing it, add it (exactly as written) to mcp.stdio_allowed_commands or to this server's stdio_allowed_commands",
  );
}

function foundCheck(
  command: string | null,
  location: CommandLocation | null,
  facts: LaunchFacts,
): LaunchCheck {
  const rule = "command_found";
  if (command === null) {
    return fail(
      rule,
      "not looked up: the command is not one plain executable",
      "fix command first",
    );
  }
  if (location) return pass(rule, `command ${JSON.stringify(command)} is ${location.path}`);
  return fail(
    rule,
    command.startsWith("/")
      ? `command ${JSON.stringify(command)} is not an executable file`
      : `command ${JSON.stringify(command)} was not found on PATH (${facts.env.get("PATH") ?? ""})`,
    "install it, or write the absolute path of its executable",
  );
}

function allowRunCheck(
  command: string | null,
  location: CommandLocation | null,
  facts: LaunchFacts,
): LaunchCheck {
  const rule = "allow_run";
  if (command === null || location === null) {
    return fail(rule, "not checked: the command was not found", "fix command first");
  }
  if (facts.runAllowed(command)) {
    return pass(rule, `command ${JSON.stringify(command)} is in this binary's allow-run list`);
  }
  const list = facts.grantedRunList.length ? facts.grantedRunList.join(", ") : "none here";
  return fail(
    rule,
    `command ${JSON.stringify(command)} is not in this binary's allow-run list (${list})`,
    `use a launcher the binary ships for, or build one that includes it: deno task compile --allow-run=...,${command}`,
  );
}

function cwdCheck(cwd: string | undefined, facts: LaunchFacts): LaunchCheck {
  if (cwd === undefined) return pass("cwd", "runs in its sandbox directory");
  if (facts.isDirectory(cwd)) return pass("cwd", `cwd ${JSON.stringify(cwd)} is a directory`);
  return fail("cwd", `cwd ${JSON.stringify(cwd)} is not a directory`, "create it or change cwd");
}

async function signatureChecks(
  server: StdioSubject,
  command: string | null,
  facts: LaunchFacts,
): Promise<LaunchCheck[]> {
  const sign = `review the launch and sign it: engram mcp sign ${server.name} --key FILE`;
  if (command === null) {
    const why = "cannot be computed until the command is one plain executable";
    return [
      fail("manifest_digest", `manifest digest ${why}`, "fix command first"),
      fail("manifest_signature", `manifest signature ${why}`, "fix command first"),
    ];
  }
  const digest = await manifestDigest({ ...server, command });
  let digestCheck: LaunchCheck;
  if (!server.manifest_digest) {
    digestCheck = fail("manifest_digest", "manifest_digest is not set", sign);
  } else if (server.manifest_digest !== digest) {
    digestCheck = fail(
      "manifest_digest",
      `manifest_digest does not match this launch (signed ${
        server.manifest_digest.slice(0, 19)
      }…, now ${
        digest.slice(0, 19)
      }…): command, args, env keys, cwd, sandbox_profile or network changed since it was signed`,
      `review the change, then sign again: engram mcp sign ${server.name} --key FILE`,
    );
  } else digestCheck = pass("manifest_digest", `manifest_digest matches (${digest})`);

  let signatureCheck: LaunchCheck;
  if (!server.manifest_signature) {
    signatureCheck = fail("manifest_signature", "manifest_signature is not set", sign);
  } else if (facts.reviewKeys.length === 0) {
    signatureCheck = fail(
      "manifest_signature",
      "mcp.review_keys is empty, so no signature can be trusted",
      "add the reviewer's public key to mcp.review_keys (engram mcp keys generate prints it)",
    );
  } else {
    // Verified over the digest of what would run, so a signature never vouches for another launch.
    const signer = await findSigner(digest, server.manifest_signature, facts.reviewKeys);
    signatureCheck = signer ? pass("manifest_signature", `signed by ${signer}`) : fail(
      "manifest_signature",
      `manifest_signature is not a signature of this launch by any key in mcp.review_keys (${facts.reviewKeys.length} listed)`,
      `sign with a listed key (engram mcp sign ${server.name} --key FILE) or add the signer's public key to mcp.review_keys`,
    );
  }
  return [digestCheck, signatureCheck];
}

function profileCheck(server: StdioSubject): LaunchCheck {
  if (server.sandbox_profile !== "disabled") {
    return pass("sandbox_profile", `sandbox_profile is ${server.sandbox_profile}`);
  }
  return fail(
    "sandbox_profile",
    "sandbox_profile is disabled, and engram never starts a stdio server outside its launch rules",
    "set sandbox_profile: restricted (or standard where bubblewrap cannot run)",
  );
}

function sandboxCheck(
  server: StdioSubject,
  found: { location: CommandLocation | null; cwd: string | undefined },
  facts: LaunchFacts,
): LaunchCheck {
  const rule = "sandbox";
  if (server.sandbox_profile === "standard") {
    return pass(
      rule,
      "standard profile: launch rules, own session, minimal environment; no bubblewrap",
    );
  }
  if (server.sandbox_profile === "disabled") {
    return fail(rule, "no sandbox: sandbox_profile is disabled", "set sandbox_profile: restricted");
  }
  if (!facts.sandbox.ok) return fail(rule, facts.sandbox.reason, facts.sandbox.fix);
  const sandboxDir = joinPath(facts.dataDir, "sandboxes", server.name);
  if (found.location && !visibleInSandbox(found.location, { sandboxDir, cwd: found.cwd })) {
    return fail(
      rule,
      `command resolves to ${found.location.realPath}, which the restricted sandbox does not show (it shows ${VISIBLE_DIRS})`,
      "install it under /usr, or set cwd to the directory holding it, or set sandbox_profile: standard",
    );
  }
  return pass(
    rule,
    `bubblewrap runs here (${facts.sandbox.bwrap}); network ${
      server.network ? "shared" : "unshared"
    }`,
  );
}

function referenceCheck(
  field: "env" | "headers",
  values: Record<string, string>,
  env: EnvSnapshot,
): LaunchCheck {
  const { missing } = expandValues(values, env);
  if (missing.length === 0) return pass("env_references", `every \${VAR} in ${field} is set`);
  const first = missing[0];
  return fail(
    "env_references",
    `${field} ${first.key} refers to \${${first.variable}}, which is not set${
      missing.length > 1 ? ` (and ${missing.length - 1} more)` : ""
    }`,
    `export ${first.variable} in engram's environment before it starts`,
  );
}

function consentCheck(server: { name: string; client_consent: string }): LaunchCheck {
  if (server.client_consent === "approved") {
    return pass("client_consent", "client_consent is approved");
  }
  return fail(
    "client_consent",
    `client_consent is ${server.client_consent}`,
    `approve it after review: engram mcp consent ${server.name} approved`,
  );
}

function enabledCheck(server: { name: string; enabled: boolean }): LaunchCheck {
  if (server.enabled) return pass("enabled", "the server is enabled");
  return fail("enabled", "the server is disabled", `enable it: engram mcp enable ${server.name}`);
}

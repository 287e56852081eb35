/**
 * @module The launch rules (docs/upstream.md#launch-rules): an evaluation of one server config
 * against the facts of this machine, before anything starts. Every check is reported (doctor
 * prints each PASS/FAIL with its fix); the first failing one blocks the server, and only it.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import {
  ABSOLUTE_CWD,
  type McpServerConfig,
  type StdioServerConfig,
} from "../../../config/mcp_servers.ts";
import { expandHome } from "../../../config/paths.ts";
import type { CommandLocation } from "./command_path.ts";
import { commandChecks, fail, type LaunchCheck, pass } from "./command_rules.ts";
import { expandValues } from "./launch_env.ts";
import { manifestDigest } from "./launch_manifest.ts";
import { findSigner } from "./review_keys.ts";
import { sandboxDirOf, type SandboxProbe, VISIBLE_DIRS, visibleInSandbox } from "./sandbox.ts";

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

/** Every check in order, and the first failing one, if any. */
export interface LaunchVerdict {
  server: string;
  checks: LaunchCheck[];
  blocked: LaunchCheck | null;
  /**
   * Stdio only: the manifest digest of this launch, when the command is one plain executable
   * (what `doctor` prints and a reviewer signs), so nobody has to compute it again.
   */
  digest?: string;
  /** Stdio only: the configured `cwd` with `~` expanded, as the rules judged it and it runs. */
  cwd?: string;
}

/** Evaluates every rule for one server. */
export async function evaluateLaunch(
  server: McpServerConfig,
  facts: LaunchFacts,
): Promise<LaunchVerdict> {
  if (server.transport === "stdio") {
    const { checks, digest, cwd } = await stdioChecks(server, facts);
    return { server: server.name, checks, blocked: firstFailure(checks), digest, cwd };
  }
  const checks = [
    referenceCheck("headers", server.headers, facts.env),
    consentCheck(server),
    enabledCheck(server),
  ];
  return { server: server.name, checks, blocked: firstFailure(checks) };
}

function firstFailure(checks: readonly LaunchCheck[]): LaunchCheck | null {
  return checks.find((c) => !c.ok) ?? null;
}

/** The one-line error for a blocked server: the rule, what is wrong, and the fix. */
export function blockedMessage(server: string, check: LaunchCheck): string {
  return `mcp server ${
    JSON.stringify(server)
  } is blocked by rule ${check.rule}: ${check.detail}; ${check.fix}`;
}

async function stdioChecks(
  server: StdioServerConfig,
  facts: LaunchFacts,
): Promise<{ checks: LaunchCheck[]; digest?: string; cwd?: string }> {
  const shape = commandChecks(server.command);
  // A single token free of metacharacters can be looked up and digested, even a blocked shell.
  const command = typeof server.command === "string" && shape[0].ok && shape[1].ok
    ? server.command
    : null;
  const location = command === null ? null : facts.locate(command);
  const cwd = server.cwd && ABSOLUTE_CWD.test(server.cwd)
    ? expandHome(server.cwd, facts.env)
    : undefined;
  const checks = [
    ...shape,
    allowlistCheck(server, facts),
    foundCheck(command, location, facts),
    allowRunCheck(command, location, facts),
    cwdCheck(server.cwd, cwd, facts),
  ];
  const signature = await signatureChecks(server, command, facts);
  checks.push(
    ...signature.checks,
    profileCheck(server),
    sandboxCheck(server, { location, cwd }, facts),
    referenceCheck("env", server.env, facts.env),
    consentCheck(server),
    enabledCheck(server),
  );
  return { checks, digest: signature.digest, cwd };
}

/**
 * An entry matches only the exact command text: `npx` allows the npx found on PATH, not a file
 * called npx elsewhere (`/tmp/x/npx`), and `/usr/bin/node` allows only that path. Comparing by
 * basename would let any program with a reviewed name through.
 */
function allowlistCheck(server: StdioServerConfig, facts: LaunchFacts): LaunchCheck {
  const rule = "allowlist";
  const text = typeof server.command === "string" ? server.command : JSON.stringify(server.command);
  if (facts.allowedCommands.includes(text)) {
    return pass(rule, `command ${JSON.stringify(text)} is in mcp.stdio_allowed_commands`);
  }
  if (server.stdio_allowed_commands.includes(text)) {
    return pass(rule, `command ${JSON.stringify(text)} is in the server's stdio_allowed_commands`);
  }
  return fail(rule, {
    detail: `command ${JSON.stringify(text)} has no reviewed allowlist entry`,
    fix:
      "after reviewing it, add it (exactly as written) to mcp.stdio_allowed_commands or to this server's stdio_allowed_commands",
  });
}

function foundCheck(
  command: string | null,
  location: CommandLocation | null,
  facts: LaunchFacts,
): LaunchCheck {
  const rule = "command_found";
  if (command === null) {
    return fail(rule, {
      detail: "not looked up: the command is not one plain executable",
      fix: "fix command first",
    });
  }
  if (location) return pass(rule, `command ${JSON.stringify(command)} is ${location.path}`);
  return fail(rule, {
    detail: command.startsWith("/")
      ? `command ${JSON.stringify(command)} is not an executable file`
      : `command ${JSON.stringify(command)} was not found on PATH (${facts.env.get("PATH") ?? ""})`,
    fix: "install it, or write the absolute path of its executable",
  });
}

function allowRunCheck(
  command: string | null,
  location: CommandLocation | null,
  facts: LaunchFacts,
): LaunchCheck {
  const rule = "allow_run";
  if (command === null || location === null) {
    return fail(rule, {
      detail: "not checked: the command was not found",
      fix: "fix command first",
    });
  }
  if (facts.runAllowed(command)) {
    return pass(rule, `command ${JSON.stringify(command)} is in this binary's allow-run list`);
  }
  const list = facts.grantedRunList.length ? facts.grantedRunList.join(", ") : "none here";
  return fail(rule, {
    detail: `command ${JSON.stringify(command)} is not in this binary's allow-run list (${list})`,
    fix:
      `use a launcher the binary ships for, or build one that includes it: deno task compile --allow-run=...,${command}`,
  });
}

function cwdCheck(
  configured: string | undefined,
  cwd: string | undefined,
  facts: LaunchFacts,
): LaunchCheck {
  if (configured === undefined) return pass("cwd", "runs in its sandbox directory");
  if (cwd === undefined) {
    // Relative to what engram was started in would make the same config run elsewhere.
    return fail("cwd", {
      detail: `cwd ${JSON.stringify(configured)} is a relative path`,
      fix: "write an absolute path, or one starting with ~/",
    });
  }
  if (facts.isDirectory(cwd)) return pass("cwd", `cwd ${JSON.stringify(cwd)} is a directory`);
  return fail("cwd", {
    detail: `cwd ${JSON.stringify(cwd)} is not a directory`,
    fix: "create it or change cwd",
  });
}

/** The manifest_digest and manifest_signature checks, and the digest when one can be computed. */
async function signatureChecks(
  server: StdioServerConfig,
  command: string | null,
  facts: LaunchFacts,
): Promise<{ checks: LaunchCheck[]; digest?: string }> {
  const sign = `review the launch and sign it: engram mcp sign ${server.name} --key FILE`;
  if (command === null) {
    const why = "cannot be computed until the command is one plain executable";
    return {
      checks: [
        fail("manifest_digest", { detail: `manifest digest ${why}`, fix: "fix command first" }),
        fail("manifest_signature", {
          detail: `manifest signature ${why}`,
          fix: "fix command first",
        }),
      ],
    };
  }
  const digest = await manifestDigest({ ...server, command });
  let digestCheck: LaunchCheck;
  if (!server.manifest_digest) {
    digestCheck = fail("manifest_digest", { detail: "manifest_digest is not set", fix: sign });
  } else if (server.manifest_digest !== digest) {
    digestCheck = fail("manifest_digest", {
      detail: `manifest_digest does not match this launch (signed ${
        server.manifest_digest.slice(0, 19)
      }…, now ${
        digest.slice(0, 19)
      }…): command, args, env keys, cwd, sandbox_profile or network changed since it was signed`,
      fix: `review the change, then sign again: engram mcp sign ${server.name} --key FILE`,
    });
  } else digestCheck = pass("manifest_digest", `manifest_digest matches (${digest})`);

  let signatureCheck: LaunchCheck;
  if (!server.manifest_signature) {
    signatureCheck = fail("manifest_signature", {
      detail: "manifest_signature is not set",
      fix: sign,
    });
  } else if (facts.reviewKeys.length === 0) {
    signatureCheck = fail("manifest_signature", {
      detail: "mcp.review_keys is empty, so no signature can be trusted",
      fix: "add the reviewer's public key to mcp.review_keys (engram mcp keys generate prints it)",
    });
  } else {
    // Verified over the digest of what would run, so a signature never vouches for another launch.
    const signer = await findSigner(digest, {
      signature: server.manifest_signature,
      reviewKeys: facts.reviewKeys,
    });
    signatureCheck = signer
      ? pass("manifest_signature", `signed by ${signer}`)
      : fail("manifest_signature", {
        detail:
          `manifest_signature is not a signature of this launch by any key in mcp.review_keys (${facts.reviewKeys.length} listed)`,
        fix:
          `sign with a listed key (engram mcp sign ${server.name} --key FILE) or add the signer's public key to mcp.review_keys`,
      });
  }
  return { checks: [digestCheck, signatureCheck], digest };
}

function profileCheck(server: StdioServerConfig): LaunchCheck {
  if (server.sandbox_profile !== "disabled") {
    return pass("sandbox_profile", `sandbox_profile is ${server.sandbox_profile}`);
  }
  return fail("sandbox_profile", {
    detail:
      "sandbox_profile is disabled, and engram never starts a stdio server outside its launch rules",
    fix: "set sandbox_profile: restricted (or standard where bubblewrap cannot run)",
  });
}

function sandboxCheck(
  server: StdioServerConfig,
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
    return fail(rule, {
      detail: "no sandbox: sandbox_profile is disabled",
      fix: "set sandbox_profile: restricted",
    });
  }
  if (!facts.sandbox.ok) {
    return fail(rule, { detail: facts.sandbox.reason, fix: facts.sandbox.fix });
  }
  const sandboxDir = sandboxDirOf(facts.dataDir, server.name);
  if (found.location && !visibleInSandbox(found.location, { sandboxDir, cwd: found.cwd })) {
    return fail(rule, {
      detail:
        `command resolves to ${found.location.realPath}, which the restricted sandbox does not show (it shows ${VISIBLE_DIRS})`,
      fix:
        "install it under /usr, or set cwd to the directory holding it, or set sandbox_profile: standard",
    });
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
  return fail("env_references", {
    detail: `${field} ${first.key} refers to \${${first.variable}}, which is not set${
      missing.length > 1 ? ` (and ${missing.length - 1} more)` : ""
    }`,
    fix: `export ${first.variable} in engram's environment before it starts`,
  });
}

function consentCheck(server: { name: string; client_consent: string }): LaunchCheck {
  if (server.client_consent === "approved") {
    return pass("client_consent", "client_consent is approved");
  }
  return fail("client_consent", {
    detail: `client_consent is ${server.client_consent}`,
    fix: `approve it after review: engram mcp consent ${server.name} approved`,
  });
}

function enabledCheck(server: { name: string; enabled: boolean }): LaunchCheck {
  if (server.enabled) return pass("enabled", "the server is enabled");
  return fail("enabled", {
    detail: "the server is disabled",
    fix: `enable it: engram mcp enable ${server.name}`,
  });
}

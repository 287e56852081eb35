/**
 * @module The launch rules (docs/upstream.md#launch-rules): an evaluation of one server config
 * against the facts of this machine, before anything starts. Every check is reported (doctor
 * prints each PASS/FAIL with its fix); the first failing one blocks the server, and only it.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import type {
  HttpServerConfig,
  McpServerConfig,
  StdioServerConfig,
} from "../../../config/mcp_servers.ts";
import type { CommandLocation } from "./command_path.ts";
import { commandChecks, fail, type LaunchCheck, pass } from "./command_rules.ts";
import { cwdCheck, resolveCwd } from "./cwd_rule.ts";
import { envLoaderCheck } from "./env_loader.ts";
import { expandValues } from "./launch_env.ts";
import { signatureChecks } from "./signature_rules.ts";
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
  /** The real path of an existing path (symlinks followed), or null when it does not exist. */
  realPath(path: string): string | null;
  /** The config file the allowlist and review keys come from, for messages; unset when none. */
  configFile?: string;
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
  /**
   * Stdio only: the configured `cwd` resolved (`~` expanded, `..` folded, symlinks followed), as
   * the rules judged it and it runs.
   */
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
    referenceCheck("oauth", oauthReferences(server), facts.env),
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
  // Resolved before any rule, so every rule judges (and the server runs in) the same folder.
  const cwd = resolveCwd(server.cwd, facts);
  const checks = [
    ...shape,
    allowlistCheck(server, facts),
    foundCheck(command, location, facts),
    allowRunCheck(server, { command, location }, facts),
    cwdCheck(server.cwd, cwd, facts),
    envLoaderCheck(server),
  ];
  const signature = await signatureChecks(server, {
    command,
    reviewKeys: facts.reviewKeys,
    configFile: facts.configFile,
  });
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

/**
 * Deno's run permission is the floor under the rules. At start-up engram keeps it only for the
 * commands of the allowlists, so a refusal names the list that lacks the command: the allowlist
 * when it is missing there, the binary's baked `--allow-run` list only when the allowlist has it.
 */
function allowRunCheck(
  server: StdioServerConfig,
  found: { command: string | null; location: CommandLocation | null },
  facts: LaunchFacts,
): LaunchCheck {
  const { command, location } = found;
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
  const quoted = JSON.stringify(command);
  if (
    !facts.allowedCommands.includes(command) && !server.stdio_allowed_commands.includes(command)
  ) {
    const where = facts.configFile ? ` in ${facts.configFile}` : "";
    return fail(rule, {
      detail:
        `command ${quoted} is not in mcp.stdio_allowed_commands or this server's stdio_allowed_commands, so engram did not keep Deno's permission to run it`,
      fix:
        `after reviewing it, add ${quoted} to mcp.stdio_allowed_commands${where}, or to this server's stdio_allowed_commands`,
    });
  }
  const list = facts.grantedRunList.length ? facts.grantedRunList.join(", ") : "none here";
  return fail(rule, {
    detail: `command ${JSON.stringify(command)} is not in this binary's allow-run list (${list})`,
    fix:
      `use a launcher the binary ships for, or build one that includes it: deno task compile --allow-run=...,${command}`,
  });
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

/** The `${VAR}` references of a server's OAuth settings (the client secret), by key. */
function oauthReferences(server: HttpServerConfig): Record<string, string> {
  const secret = server.oauth?.client_secret;
  return secret === undefined ? {} : { client_secret: secret };
}

function referenceCheck(
  field: "env" | "headers" | "oauth",
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

/**
 * @module Steps 1 and 2 of `engram mcp review` (docs/upstream.md#review-from-import-to-an-exposed-tool):
 * the launch of a stdio server as it will run — the command as found on PATH, its args, each env
 * key with where its value comes from (never the value of a `${VAR}`; a loader key's value as
 * written, which the signature covers and which is no secret), cwd, sandbox and network —
 * with what engram recommends (a package runner needs network, a host path the standard sandbox or
 * a cwd, a loader key is dangerous), and the operator's choice of sandbox, network and cwd: asked
 * on a terminal, taken from the flags off one.
 */
import { resolve } from "node:path";
import type { SandboxProfile, StdioServerConfig } from "../../../config/mcp_servers.ts";
import { type LaunchNeed, launchNeeds } from "../../../mcp/client/import/launch_needs.ts";
import { resolveCwd } from "../../../mcp/client/launch/cwd_rule.ts";
import { loaderKey } from "../../../mcp/client/launch/env_loader.ts";
import type { LaunchFacts } from "../../../mcp/client/launch/launch_rules.ts";
import { loopbackWarning } from "../../../mcp/client/launch/server_status.ts";
import { EngramError } from "../../../core/errors.ts";
import { terminalSafeJson } from "../../../core/text/terminal_text.ts";
import type { Parsed } from "../../args.ts";
import type { CommandContext } from "../../context.ts";

/** Where the launch runs: sandbox, network, cwd (undefined: its own sandbox directory). */
export interface LaunchChoice {
  sandbox_profile: SandboxProfile;
  network: boolean;
  cwd: string | undefined;
}

/** One env key as review shows it: where its value comes from, and whether it steers a loader. */
export interface EnvView {
  key: string;
  /** `literal` (written in the entry) or `reference` (a `${VAR}` of engram's environment). */
  source: "literal" | "reference";
  /** The variables a reference names, each with whether it is set now. */
  variables?: { name: string; set: boolean }[];
  /** Set when the key steers a loader or interpreter: why, and whether allow_env names it. */
  dangerous?: { why: string; allowed: boolean };
  /** A loader key's value as written (`${VAR}` verbatim): what the signature vouches for. */
  value?: string;
}

/** The launch as it will run, and what engram recommends. */
export interface LaunchView {
  command: string | string[];
  /** Where the command resolves on this machine; null when not found. */
  resolved: string | null;
  args: string[];
  env: EnvView[];
  cwd: string | null;
  cwd_resolved: string | null;
  sandbox_profile: SandboxProfile;
  network: boolean;
  needs: LaunchNeed[];
  /** Said when it would share the host's network, loopback included. */
  loopback: string | null;
}

const REFERENCE = /\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The choice the flags make over the server's current launch (relative --cwd from `ctx.cwd`); a
 * bad flag is `invalid_argument` (the command makes it a usage error).
 */
export function choiceFromFlags(
  args: Parsed,
  o: { server: StdioServerConfig; ctx: CommandContext },
): LaunchChoice {
  const v = args.values;
  const sandbox = v.sandbox as string | undefined;
  if (sandbox !== undefined && sandbox !== "restricted" && sandbox !== "standard") {
    throw new EngramError(
      "invalid_argument",
      `--sandbox must be restricted or standard, not "${sandbox}"`,
    );
  }
  if (v.network === true && v["no-network"] === true) {
    throw new EngramError("invalid_argument", "give --network or --no-network, not both");
  }
  const cwd = v.cwd as string | undefined;
  return {
    sandbox_profile: (sandbox as SandboxProfile | undefined) ?? o.server.sandbox_profile,
    network: v.network === true ? true : v["no-network"] === true ? false : o.server.network,
    cwd: cwd === undefined ? o.server.cwd : cwdOf(cwd, o.ctx.cwd),
  };
}

/** A --cwd as the entry keeps it: `~/…` as written, a relative one made absolute from `from`. */
function cwdOf(text: string, from: string): string {
  return text === "~" || text.startsWith("~/") || text.startsWith("/") ? text : resolve(from, text);
}

/** The server with `choice` applied. */
export function withChoice(server: StdioServerConfig, choice: LaunchChoice): StdioServerConfig {
  const { cwd: _old, ...rest } = server;
  return {
    ...rest,
    sandbox_profile: choice.sandbox_profile,
    network: choice.network,
    ...(choice.cwd === undefined ? {} : { cwd: choice.cwd }),
  };
}

/** What review shows of a launch (step 1). */
export function launchView(
  server: StdioServerConfig,
  o: { facts: LaunchFacts; home?: string },
): LaunchView {
  const { facts } = o;
  const allowed = new Set(server.allow_env ?? []);
  const env: EnvView[] = Object.entries(server.env).map(([key, value]) => {
    const names = [...value.matchAll(REFERENCE)].map((m) => m[1]);
    const loader = loaderKey(key);
    return {
      key,
      source: names.length ? "reference" : "literal",
      ...(names.length
        ? { variables: names.map((name) => ({ name, set: facts.env.get(name) !== undefined })) }
        : {}),
      ...(loader ? { dangerous: { why: loader.why, allowed: allowed.has(key) }, value } : {}),
    };
  });
  const command = typeof server.command === "string" ? server.command : [...server.command];
  return {
    command,
    resolved: typeof command === "string" ? facts.locate(command)?.path ?? null : null,
    args: [...server.args],
    env,
    cwd: server.cwd ?? null,
    cwd_resolved: resolveCwd(server.cwd, facts) ?? null,
    sandbox_profile: server.sandbox_profile,
    network: server.network,
    needs: launchNeeds(server, { dataDir: facts.dataDir, home: o.home }),
    loopback: loopbackWarning(server, facts.sandbox),
  };
}

/** Prints step 1. */
export function printLaunch(say: (line: string) => void, view: LaunchView): void {
  say(
    `  command: ${JSON.stringify(view.command)}${
      view.resolved ? ` (${view.resolved})` : " (not found on PATH)"
    }`,
  );
  say(`  args:    ${JSON.stringify(view.args)}`);
  if (view.env.length === 0) say("  env:     (none)");
  for (const e of view.env) {
    const from = e.source === "literal"
      ? "a literal value written in the entry"
      : `from ${
        e.variables!.map((v) => `\${${v.name}} (${v.set ? "set" : "NOT set"})`).join(", ")
      }`;
    say(`  env ${e.key}: ${from}`);
    if (e.value !== undefined) {
      say(`    value as written: ${terminalSafeJson(JSON.stringify(e.value))}`);
    }
    if (e.dangerous) {
      say(
        `    DANGEROUS: ${e.key} steers a loader or interpreter (${e.dangerous.why}); ${
          !e.dangerous.allowed
            ? "refused by rule env_loader unless allow_env names it"
            : e.source === "reference"
            ? "allow_env names it, but its value comes from engram's environment at each start, unsigned: refused by rule env_loader; write the value literally"
            : "allow_env names it, so it runs with the value above"
        }`,
      );
    }
  }
  say(
    `  cwd:     ${
      view.cwd === null
        ? "its own sandbox directory"
        : `${JSON.stringify(view.cwd)}${
          view.cwd_resolved ? ` (resolves to ${view.cwd_resolved})` : ""
        }`
    }`,
  );
  say(`  sandbox: ${view.sandbox_profile}`);
  say(`  network: ${view.network ? "on" : "off"}`);
  for (const n of view.needs) say(`  recommended: ${n.detail}; ${n.fix}`);
  if (view.loopback) say(`  warning: ${view.loopback}`);
}

/**
 * Step 2 on a terminal: asks to keep or change sandbox, network and cwd; an empty answer keeps the
 * value shown (the flags' where given). `read` is review's one reader of the terminal's lines.
 */
export async function askChoice(
  ctx: CommandContext,
  o: { start: LaunchChoice; read: () => Promise<string | null> },
): Promise<LaunchChoice> {
  const { start, read } = o;
  const ask = async (question: string): Promise<string> => {
    ctx.out.warn(question);
    return ((await read()) ?? "").trim();
  };
  let sandbox = start.sandbox_profile;
  for (;;) {
    const a = await ask(`sandbox (restricted|standard) [${sandbox}]: `);
    if (a === "") break;
    if (a === "restricted" || a === "standard") {
      sandbox = a;
      break;
    }
    ctx.out.warn(
      `${
        JSON.stringify(a)
      } is not a sandbox: answer restricted or standard, or nothing to keep ${sandbox}`,
    );
  }
  let network = start.network;
  for (;;) {
    const a = (await ask(`network (on|off) [${network ? "on" : "off"}]: `)).toLowerCase();
    if (a === "") break;
    if (["on", "yes", "y", "true"].includes(a)) network = true;
    else if (["off", "no", "n", "false"].includes(a)) network = false;
    else {
      ctx.out.warn(
        `${JSON.stringify(a)} is neither on nor off: answer on or off, or nothing to keep ${
          network ? "on" : "off"
        }`,
      );
      continue;
    }
    break;
  }
  const c = await ask(
    `cwd (a folder, or - for its own sandbox directory) [${start.cwd ?? "-"}]: `,
  );
  const cwd = c === "" ? start.cwd : c === "-" ? undefined : cwdOf(c, ctx.cwd);
  return { sandbox_profile: sandbox, network, cwd };
}

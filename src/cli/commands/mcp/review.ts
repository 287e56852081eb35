/**
 * @module `engram mcp review NAME`: walks one server through every rule in order, and starts
 * nothing before the operator has seen what will run (docs/upstream.md#review-from-import-to-an-exposed-tool):
 * 1. the launch as it will run, with engram's recommendations (review_launch.ts); 2. the choice
 * of sandbox, network and cwd (asked on a terminal, the flags off one, where `--yes` is needed);
 * 3. the command added to the server's allowlist and the launch signed with the operator's review
 * key (review_keys_trust.ts); 4. consent, enable, and a start with the doctor's live checks — a
 * remote server that needs an OAuth login is logged in to on a terminal (auth/review_login.ts), a
 * failed start leaves it disabled; 5. its capabilities listed, the picked ones approved and
 * exposed (review_pick.ts). Steps 1–3 are for stdio servers. Every change is an operator action
 * in the audit log. A server the config file defines is never edited: review prints the lines to
 * paste, and goes on when run again after they were pasted.
 */
import type { McpServerConfig, StdioServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import type { Tier } from "../../../core/types.ts";
import { liveDoctor } from "../../../mcp/client/doctor/doctor_live.ts";
import { commandChecks } from "../../../mcp/client/launch/command_rules.ts";
import { countedReviewKeys } from "../../../mcp/client/launch/launch_facts.ts";
import {
  type CatalogEntry,
  findEntry,
  loadCatalog,
  overrideNote,
} from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, type Parsed, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { unlessAborted, untilInterrupted } from "../../interrupt.ts";
import { recordOperatorAction } from "../../operator_audit.ts";
import { stdinLines } from "../../stdin_lines.ts";
import {
  reviewServers,
  trustedKeysOf,
  upstreamOAuth,
  type UpstreamSetup,
  withUpstreams,
} from "../../upstreams.ts";
import {
  askChoice,
  choiceFromFlags,
  launchView,
  printLaunch,
  withChoice,
} from "./review_launch.ts";
import {
  approvePicked,
  askPicks,
  exposedNames,
  listCapabilities,
  picked,
  printCapabilities,
} from "./review_pick.ts";
import { signStep, stateStep } from "./review_sign.ts";
import { reviewLogin } from "./auth/review_login.ts";

/** Usage of `engram mcp review`. */
export const MCP_REVIEW_SPEC: CommandSpec = {
  name: "mcp review",
  usage:
    "engram mcp review NAME [--sandbox restricted|standard] [--network | --no-network] [--cwd DIR] [--approve NAME_OR_GLOB]... [--expose read|write|admin] [--yes] [--json]",
  summary:
    "Walk one upstream server through every rule, in order, starting nothing before you have seen what will run: 1. its launch as it will run (command, args, where each env value comes from, cwd, sandbox, network) with engram's recommendations; 2. keep or change sandbox, network and cwd (asked on a terminal; off one the flags are taken, and --yes is needed); 3. its command added to the server's allowlist and the launch signed with your review key (created on first use, trusted in the database while mcp.review_keys is empty); 4. consent, enable, and a start with the doctor's live checks (a failed start shows its stderr and the likely fix, and leaves it disabled); 5. its tools, prompts and resource templates, the picked ones approved and exposed. Steps 1–3 are for stdio servers. A server of the config file is not edited: review prints the lines to paste there and stops; run it again after pasting. Exits 2 off a terminal without --yes, 1 when a step fails.",
  options: {
    sandbox: { type: "string", help: "PROFILE  restricted|standard: the sandbox it runs in" },
    network: { type: "boolean", help: "give it network (a package runner needs it to fetch)" },
    "no-network": { type: "boolean", help: "no network" },
    cwd: { type: "string", help: "DIR  the folder it runs in (the one host folder it sees)" },
    approve: {
      type: "string",
      multiple: true,
      help: "NAME_OR_GLOB  approve the tools, prompts, templates it names (repeatable)",
    },
    expose: { type: "string", help: "TIER  offer the approved ones to agents at read|write|admin" },
    yes: { type: "boolean", help: "go on without asking (needed off a terminal)" },
    json: { type: "boolean", help: "print an account of each step as JSON" },
  },
  positionals: [1, 1],
};

/** What review did, step by step, for --json. */
export interface ReviewAccount {
  server: string;
  steps: Record<string, unknown>[];
  /** Why review stopped before the end, when it did. */
  stopped?: string;
}

/** Runs `engram mcp review`. */
export async function mcpReview(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_REVIEW_SPEC, ctx.out);
  if (!args) return 0;
  const name = args.positionals[0];
  const expose = tierOf(args);
  const json = args.values.json === true;
  const account: ReviewAccount = { server: name, steps: [] };
  const say = (line: string) => json || ctx.out.line(line);
  const keepFor = (catalog: readonly CatalogEntry[]): McpServerConfig[] => {
    const c = catalog.find((e) => e.config.name.toLowerCase() === name.toLowerCase())?.config;
    if (!c) return [];
    // A stdio server's own command and the sandbox helpers whatever is chosen in step 2. An http
    // or sse server launches nothing: a sandbox probe it does not need is refused at once
    // (--no-prompt), never asked about on the operator's terminal.
    if (c.transport !== "stdio" || typeof c.command !== "string") return [];
    const helpers = { sandbox_profile: "restricted", network: true } as const;
    return [{ ...c, ...helpers, stdio_allowed_commands: [c.command] }];
  };
  return await untilInterrupted(
    ctx,
    (signal) =>
      withUpstreams(ctx, configFlags(args.values), { mode: "mcp-live", keepFor }, async (u) => {
        let code: number;
        try {
          const lines = stdinLines(ctx.stdin);
          // Ctrl-C at a question ends review: a pending read of the terminal never would.
          const read = () => unlessAborted(lines(), signal);
          code = await review(u, { ctx, args, name, expose, say, account, signal, read });
        } finally {
          if (json && !signal.aborted) ctx.out.json(account);
        }
        return code;
      }),
  );
}

/** The --expose tier, checked before anything runs. */
function tierOf(args: Parsed): Tier | null {
  const raw = args.values.expose as string | undefined;
  if (raw === undefined) return null;
  if (raw === "read" || raw === "write" || raw === "admin") return raw;
  throw usageError(MCP_REVIEW_SPEC, `--expose must be read, write or admin, not "${raw}"`);
}

/** What each step needs. */
interface ReviewRun {
  ctx: CommandContext;
  args: Parsed;
  name: string;
  expose: Tier | null;
  say: (line: string) => void;
  account: ReviewAccount;
  signal: AbortSignal;
  /** The one reader of the terminal's lines: every question of the run reads through it. */
  read: () => Promise<string | null>;
}

async function review(u: UpstreamSetup, o: ReviewRun): Promise<number> {
  const { ctx, args, say, account } = o;
  let entry = findEntry(u.catalog, o.name);
  if (entry.problem) {
    throw new EngramError(
      "conflict",
      `${entry.config.name}: ${entry.problem}: engram mcp remove ${entry.config.name}, then import it again`,
    );
  }
  const name = entry.config.name;
  account.server = name;
  const audit = (changes: string[]) =>
    changes.length
      ? recordOperatorAction(u.runtime.audit, {
        env: ctx.env,
        command: "mcp review",
        server: name,
        changes,
      })
      : Promise.resolve();
  const note = overrideNote(entry);
  if (note) say(`note: ${note}`);
  const yes = args.values.yes === true;
  let paste: string[] = [];
  if (entry.config.transport === "stdio") {
    const server = entry.config as StdioServerConfig;
    const home = ctx.env.get("HOME");
    let choice;
    try {
      choice = choiceFromFlags(args, { server, ctx });
    } catch (err) {
      if (err instanceof EngramError) throw usageError(MCP_REVIEW_SPEC, err.message);
      throw err;
    }
    const now = launchView(server, { facts: u.facts!, home });
    say(`1. the launch of ${name} (${entry.origin}) as it runs now:`);
    printLaunch(say, now);
    account.steps.push({ step: "launch", launch: now });
    if (ctx.stdinIsTerminal && !yes) choice = await askChoice(ctx, { start: choice, read: o.read });
    const planned = withChoice(server, choice);
    const changes = launchChanges(server, planned);
    if (changes.length) {
      say(`2. the launch you chose (${changes.join("; ")}):`);
      printLaunch(say, launchView(planned, { facts: u.facts!, home }));
    } else say("2. the launch stays as it is");
    account.steps.push({ step: "choice", changes, ...choice });
    if (!await goOn(o, { yes, launch: true })) return stop(o, "needs --yes", EXIT.usage);
    const shape = typeof planned.command === "string"
      ? commandChecks(planned.command).find((c) => !c.ok)
      : undefined;
    if (typeof planned.command !== "string" || shape) {
      throw new EngramError(
        "invalid_argument",
        `${name} cannot be reviewed: ${shape?.detail ?? "its command is a list"}; ${
          shape?.fix ?? "put the executable in command and the rest in args"
        }`,
      );
    }
    const signed = await signStep(u, {
      ctx,
      entry,
      planned: { ...planned, command: planned.command },
    });
    await audit([...changes.map((c) => `launch ${c}`), ...signed.changes]);
    for (const line of signed.changes) say(`3. ${line}`);
    if (signed.changes.length === 0) {
      say("3. the launch is allowlisted and signed by a trusted key already");
    }
    account.steps.push({ step: "sign", changes: signed.changes, manifest_digest: signed.digest });
    paste = signed.paste;
  } else {
    say(
      `1–3. ${name} is reached over ${entry.config.transport} at ${entry.config.url}: nothing to launch or sign`,
    );
    if (!await goOn(o, { yes, launch: false })) return stop(o, "needs --yes", EXIT.usage);
  }
  entry = findEntry(await loadCatalog(u.config.mcp, u.runtime.upstreams), name);
  const state = await stateStep(u, { entry, paste, enable: true });
  if (state.paste.length) {
    const at = entry.yaml.name;
    say(
      `${name} is defined in ${
        at ? `${at.file}:${at.line}` : "the config file"
      }, which review does not edit; paste into its entry (replacing these keys where it has them):`,
    );
    say("");
    for (const line of state.paste) say(`      ${line}`);
    say("");
    say(`then run again: engram mcp review ${name}${o.args.values.yes ? " --yes" : ""}`);
    account.steps.push({
      step: "paste",
      file: at ? `${at.file}:${at.line}` : u.config.configFile,
      lines: state.paste,
    });
    return stop(o, "paste into the config file, then run again", EXIT.error);
  }
  await audit(state.changes);
  return await startAndPick(u, o, {
    entry: state.entry,
    audit,
    enabledHere: state.changes.some((c) => c.startsWith("enabled")),
  });
}

/**
 * Off a terminal without --yes: nothing changes. On one: the operator confirms. `launch`: there is
 * a launch to allowlist and sign (stdio); an http or sse server has none.
 */
async function goOn(o: ReviewRun, w: { yes: boolean; launch: boolean }): Promise<boolean> {
  if (w.yes) return true;
  if (!o.ctx.stdinIsTerminal) {
    o.ctx.out.warn(
      `engram: review changes ${o.name} (${
        w.launch ? "allowlists and signs its launch, " : ""
      }records consent, enables and starts it, approves what you pick): off a terminal, pass --yes to go on with the flags given; nothing was changed`,
    );
    return false;
  }
  o.ctx.out.warn(
    `${
      w.launch ? "allowlist and sign this launch, record consent" : "record consent"
    }, enable and start ${o.name}? [y/N] `,
  );
  const answer = ((await o.read()) ?? "").trim().toLowerCase();
  return answer === "y" || answer === "yes";
}

function stop(o: ReviewRun, why: string, code: number): number {
  o.account.stopped = why;
  if (code !== EXIT.usage) return code;
  return o.ctx.stdinIsTerminal ? (o.say("nothing changed"), EXIT.error) : code;
}

/** Steps 4 and 5: start it with the live checks; list, approve and expose. */
async function startAndPick(
  u0: UpstreamSetup,
  o: ReviewRun,
  s: { entry: CatalogEntry; audit: (c: string[]) => Promise<void>; enabledHere: boolean },
): Promise<number> {
  const { say, account } = o;
  const name = s.entry.config.name;
  const catalog = await loadCatalog(u0.config.mcp, u0.runtime.upstreams);
  const keys = countedReviewKeys(u0.config.mcp.review_keys, await trustedKeysOf(u0.runtime)).keys;
  const u: UpstreamSetup = { ...u0, catalog, facts: { ...u0.facts!, reviewKeys: keys } };
  const entry = findEntry(catalog, name);
  const oauth = upstreamOAuth(u.runtime, u.config, o.ctx.env);
  const start = async () => {
    const [report] = await liveDoctor([entry.config], {
      facts: u.facts!,
      timeoutMs: u.config.mcp.request_timeout_ms,
      maxResultBytes: u.config.mcp.max_result_bytes,
      signal: o.signal,
      oauth,
    });
    if (o.signal.aborted) throw new EngramError("provider_unavailable", String(o.signal.reason));
    return report;
  };
  let live = await start();
  account.steps.push({ step: "start", ok: live.ok, checks: live.checks });
  const login = live.checks.find((c) => c.oauth === "needs_login");
  if (login && entry.config.transport !== "stdio") {
    const outcome = await reviewLogin(u, entry.config, {
      ctx: o.ctx,
      oauth,
      say,
      json: o.args.values.json === true,
      yes: o.args.values.yes === true,
      read: o.read,
      signal: o.signal,
      audit: s.audit,
      why: login.detail,
    });
    account.steps.push(outcome.account);
    if (outcome.loggedIn) {
      live = await start();
      account.steps.push({ step: "start", ok: live.ok, checks: live.checks });
    }
  }
  if (!live.ok) {
    const failed = live.checks.find((c) => c.status === "fail")!;
    say(`4. ${name} did not start: ${failed.check} failed: ${failed.detail}`);
    if (failed.stderr?.length) {
      say("   its stderr ends with:");
      for (const line of failed.stderr) say(`   | ${line}`);
    } else if (entry.config.transport === "stdio") say("   it wrote nothing to stderr");
    say(`   fix: ${failed.fix}`);
    if (s.enabledHere) {
      await stateStep(u, { entry, paste: [], enable: false });
      await s.audit([`did not start (${failed.check}): disabled again`]);
      say(`   ${name} is left disabled; run engram mcp review ${name} again with the fix`);
    }
    return stop(o, `the start failed (${failed.check})`, EXIT.error);
  }
  const init = live.checks.find((c) => c.check === "initialize");
  say(`4. consent approved, enabled, and it started (${init?.detail ?? "initialized"})`);
  const [found] = await reviewServers(u, o.ctx, [entry], { signal: o.signal });
  if (!found.reachable) throw found.error!;
  const listed = listCapabilities(found);
  say(`5. what ${name} offers:`);
  printCapabilities(say, listed);
  const flagged = o.args.values.approve as string[] | undefined;
  const targets = flagged || !o.ctx.stdinIsTerminal || o.args.values.yes === true
    ? picked(found, flagged ?? [])
    : await askPicks(o.ctx, { review: found, read: o.read });
  const approved = await approvePicked(u, {
    review: found,
    targets,
    expose: o.expose,
    by: o.ctx.env.get("USER") ?? "operator",
  });
  await s.audit(approved);
  for (const line of approved) say(`   ${line}`);
  const exposed = await exposedNames(u, name);
  const undo = `engram mcp disable ${name}`;
  say(
    exposed.length
      ? `agents now see: ${exposed.join(", ")}`
      : `agents see nothing of ${name} yet${
        targets.length && !o.expose ? ": approve with --expose read|write|admin to offer it" : ""
      }`,
  );
  say(`undo all of it: ${undo}`);
  account.steps.push({
    step: "capabilities",
    capabilities: listed,
    approved: targets.map((t) => ({ kind: t.kind, name: t.name })),
    expose: o.expose,
    exposed,
    undo,
  });
  return EXIT.ok;
}

/** The launch keys step 2 changes, in words. */
function launchChanges(before: StdioServerConfig, after: StdioServerConfig): string[] {
  const out: string[] = [];
  if (before.sandbox_profile !== after.sandbox_profile) {
    out.push(`sandbox_profile: ${before.sandbox_profile} → ${after.sandbox_profile}`);
  }
  if (before.network !== after.network) out.push(`network: ${before.network} → ${after.network}`);
  if (before.cwd !== after.cwd) {
    out.push(
      `cwd: ${before.cwd ?? "(its sandbox directory)"} → ${after.cwd ?? "(its sandbox directory)"}`,
    );
  }
  return out;
}

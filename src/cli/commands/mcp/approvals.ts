/**
 * @module `engram mcp approvals`: the operator's approvals of upstream tools, prompts and resource
 * templates — list (with each one's state against what the server lists now), approve, revoke,
 * diff — and the lockfile (export, import, verify). Approvals are the operator's alone: no agent
 * tool can change them.
 */
import { EngramError } from "../../../core/errors.ts";
import { meantName } from "../../../core/text/edit_distance.ts";
import type { ApprovedKind } from "../../../core/ports/approval_store.ts";
import {
  approvable,
  capabilityIn,
  definitionDiff,
} from "../../../mcp/client/approvals/approval_actions.ts";
import { approvalOf } from "../../../mcp/client/approvals/capability_review.ts";
import type { CapabilityStatus } from "../../../mcp/client/approvals/capability_states.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import { configFlags, type Parsed, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { recordOperatorAction } from "../../operator_audit.ts";
import { table } from "../../output.ts";
import { reviewServers, type UpstreamSetup, withUpstreams } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";
import { confirmOnTerminal } from "../../confirm.ts";
import { unknownCommandMessage } from "../../group_help.ts";
import {
  asOf,
  checkNameFree,
  collisionNotes,
  effectiveTier,
  exposeOf,
  notExposedHint,
} from "./approvals_expose.ts";
import { approvalsLockCommand } from "./approvals_lock.ts";
import { MCP_APPROVALS_SPEC } from "./approvals_spec.ts";

/** The usage of `engram mcp approvals`, where the `engram mcp` dispatcher looks for it. */
export { MCP_APPROVALS_SPEC };

const VERBS = new Set(["list", "approve", "revoke", "diff", "export", "import", "verify"]);

/** Runs `engram mcp approvals …`. */
export async function mcpApprovals(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_APPROVALS_SPEC, ctx.out);
  if (!args) return 0;
  const [first, ...rest] = args.positionals;
  const verb = first === undefined || !VERBS.has(first) ? "list" : first;
  const operands = verb === "list" && first !== "list" ? args.positionals : rest;
  // `approvals SERVER` lists one server, so a first word followed by more is a mistyped verb.
  if (verb === "list" && first !== "list" && operands.length > 1) {
    throw usageError(MCP_APPROVALS_SPEC, unknownCommandMessage("approvals", first, [...VERBS]));
  }
  if (verb === "export" || verb === "import" || verb === "verify") {
    return await approvalsLockCommand(verb, { args, operands, ctx });
  }
  const kind = kindOf(args);
  return await withUpstreams(ctx, configFlags(args.values), { mode: "mcp-live" }, async (u) => {
    switch (verb) {
      case "list":
        return await list(u, ctx, { server: operands[0], json: args.values.json === true });
      case "approve":
        return await approve(u, ctx, { args, operands, kind });
      case "revoke":
        return await revoke(u, ctx, { operands, kind, json: args.values.json === true });
      default:
        return await diff(u, ctx, { operands, kind, json: args.values.json === true });
    }
  });
}

async function list(
  u: UpstreamSetup,
  ctx: CommandContext,
  o: { server?: string; json: boolean },
): Promise<number> {
  const entries = o.server === undefined ? u.catalog : [listedServer(u, o.server)];
  const reviews = await reviewServers(u, ctx, entries, { interactive: true });
  const rows = reviews.flatMap((r) => r.states.map((s) => ({ review: r, s })));
  if (o.json) {
    ctx.out.json(rows.map(({ review, s }) => ({
      server: s.server,
      kind: s.kind,
      name: s.name,
      state: s.state,
      reachable: review.reachable,
      pin: s.live?.pin ?? null,
      approved_pin: s.approval?.pin ?? null,
      expose: s.approval?.expose_tier ?? null,
      ...(s.approval?.expose_as ? { expose_as: s.approval.expose_as } : {}),
      ...(s.renamed_from ? { renamed_from: s.renamed_from } : {}),
    })));
    return 0;
  }
  for (const r of reviews.filter((r) => !r.reachable)) {
    ctx.out.warn(
      `${r.server}: not reached (${r.error?.message}); its approvals are shown as stored`,
    );
  }
  if (rows.length === 0) {
    ctx.out.line("nothing to approve: no server listed a tool, prompt or resource template");
    return 0;
  }
  ctx.out.line(table([
    ["server", "kind", "name", "state", "exposed", "note"],
    ...rows.map(({ s }) => [
      s.server,
      s.kind,
      s.name,
      s.state,
      s.approval?.state === "approved" && s.approval.expose_tier ? s.approval.expose_tier : "-",
      s.renamed_from ? `same definition as approved ${s.renamed_from}: review it again` : "",
    ]),
  ]));
  return 0;
}

async function approve(
  u: UpstreamSetup,
  ctx: CommandContext,
  o: { args: Parsed; operands: string[]; kind?: ApprovedKind },
): Promise<number> {
  const all = o.args.values["all-pending"] === true;
  const [server, name] = o.operands;
  if (server === undefined || (name === undefined) === !all) {
    throw usageError(MCP_APPROVALS_SPEC, "approve takes SERVER and NAME, or SERVER --all-pending");
  }
  const entry = findEntry(u.catalog, server);
  const expose = exposeOf(o.args, entry, name);
  const as = asOf(o.args, all);
  const [review] = await reviewServers(u, ctx, [entry], { interactive: true });
  if (!review.reachable) throw review.error!;
  const targets = all
    ? review.states.filter((s) => s.state === "pending" && (!o.kind || s.kind === o.kind))
    : [capabilityIn(review, name, o.kind)];
  if (as !== undefined) await checkNameFree(u, { entry, status: targets[0], as });
  if (all && targets.length === 0) {
    ctx.out.line(`${entry.config.name} has nothing pending`);
    return 0;
  }
  if (all && o.args.values.yes !== true) {
    const listed = targets.map((s) => `${s.kind} ${s.name}`).join(", ");
    const ok = await confirmOnTerminal(ctx, {
      question:
        `approve ${targets.length} pending capabilities of ${entry.config.name} (${listed})? [y/N] `,
      offTerminal:
        "approving everything pending needs a person: run it on a terminal, or add --yes",
    });
    if (!ok) {
      ctx.out.line("nothing approved");
      return EXIT.error;
    }
  }
  const book = approvalBook(u);
  const at = new Date().toISOString();
  for (const status of targets) {
    const live = approvable(status);
    // A name chosen earlier with --as holds until another is given.
    const named = status.kind === "tool" ? as ?? status.approval?.expose_as : undefined;
    await book.put({
      ...approvalOf(entry.config.name, live, {
        identity: review.identity,
        // Prompts and templates are offered like tools (docs/upstream.md#exposure).
        expose: expose ?? status.approval?.expose_tier ?? null,
        by: ctx.env.get("USER") ?? "operator",
        at,
      }),
      ...(named ? { expose_as: named } : {}),
    });
  }
  await recordOperatorAction(u.runtime.audit, {
    env: ctx.env,
    command: "mcp approvals approve",
    server: entry.config.name,
    changes: targets.map((t) =>
      `approved ${t.kind} ${t.name}${expose ? ` (exposed at ${expose})` : ""}${
        as ? ` as ${as}` : ""
      }`
    ),
  });
  const unexposed: string[] = [];
  for (const status of targets) {
    const approvedTier = expose === undefined ? status.approval?.expose_tier : expose;
    const tier = status.kind === "tool"
      ? effectiveTier(entry, status.name, approvedTier)
      : entry.config.expose?.tier ?? approvedTier ?? null;
    const named = as ?? status.approval?.expose_as;
    if (status.kind === "tool" && tier === null) unexposed.push(status.name);
    ctx.out.line(
      `approved ${status.kind} ${entry.config.name} ${status.name}${
        tier ? ` (exposed to agents at tier ${tier}${named ? ` as ${named}` : ""})` : ""
      }${book.source === "database" ? "" : ` in ${book.source}`}`,
    );
  }
  if (unexposed.length) ctx.out.line(notExposedHint(entry, unexposed));
  const tools = targets.filter((t) => t.kind === "tool").map((t) => t.name);
  if (tools.length > unexposed.length) {
    for (const note of await collisionNotes(u, { entry, tools })) ctx.out.warn(note);
  }
  return 0;
}

async function revoke(
  u: UpstreamSetup,
  ctx: CommandContext,
  o: { operands: string[]; kind?: ApprovedKind; json: boolean },
): Promise<number> {
  const [server, name] = serverAndName(o.operands, "revoke");
  const entry = findEntry(u.catalog, server);
  const book = approvalBook(u);
  const mine = (await book.list(entry.config.name)).filter((a) =>
    a.name === name && (!o.kind || a.kind === o.kind)
  );
  if (mine.length !== 1) {
    throw new EngramError(
      mine.length ? "invalid_argument" : "not_found",
      mine.length
        ? `${entry.config.name} has approvals of a ${
          mine.map((m) => m.kind).join(" and a ")
        } named "${name}"; say which with --kind`
        : `${entry.config.name} has no approval of "${name}"; list them with: engram mcp approvals ${entry.config.name}`,
    );
  }
  await book.put({ ...mine[0], state: "revoked", revoked_at: new Date().toISOString() });
  await recordOperatorAction(u.runtime.audit, {
    env: ctx.env,
    command: "mcp approvals revoke",
    server: entry.config.name,
    changes: [`revoked ${mine[0].kind} ${name}`],
  });
  ctx.out.line(`revoked ${mine[0].kind} ${entry.config.name} ${name}`);
  return 0;
}

async function diff(
  u: UpstreamSetup,
  ctx: CommandContext,
  o: { operands: string[]; kind?: ApprovedKind; json: boolean },
): Promise<number> {
  const [server, name] = serverAndName(o.operands, "diff");
  const [review] = await reviewServers(u, ctx, [findEntry(u.catalog, server)], {
    interactive: true,
  });
  const status: CapabilityStatus = capabilityIn(review, name, o.kind);
  const patch = definitionDiff(status);
  if (o.json) {
    ctx.out.json({
      server: status.server,
      kind: status.kind,
      name: status.name,
      state: status.state,
      approved: status.approval?.definition ?? null,
      live: status.live?.definition ?? null,
      diff: patch,
    });
  } else if (patch === "") {
    ctx.out.line(
      `${status.kind} ${status.server} ${status.name} is ${status.state}; no difference`,
    );
  } else {
    ctx.out.line(`${status.kind} ${status.server} ${status.name} is ${status.state}:`);
    ctx.out.line(patch);
  }
  return 0;
}

/** The server `approvals WORD` lists; a WORD no server is named that is close to a verb is a typo. */
function listedServer(u: UpstreamSetup, word: string) {
  const named = u.catalog.some((e) => e.config.name.toLowerCase() === word.toLowerCase());
  if (!named && meantName(word, [...VERBS])) {
    throw usageError(
      MCP_APPROVALS_SPEC,
      `${unknownCommandMessage("approvals", word, [...VERBS])}, and no server is named so`,
    );
  }
  return findEntry(u.catalog, word);
}

function kindOf(args: Parsed): ApprovedKind | undefined {
  const kind = args.values.kind as string | undefined;
  if (kind === undefined) return undefined;
  if (kind === "tool" || kind === "prompt" || kind === "template") return kind;
  throw usageError(MCP_APPROVALS_SPEC, `--kind must be tool, prompt or template, not "${kind}"`);
}

/** The SERVER and NAME operands of a verb that takes both. */
function serverAndName(operands: string[], verb: string): [string, string] {
  const [server, name] = operands;
  if (server === undefined || name === undefined) {
    throw usageError(MCP_APPROVALS_SPEC, `${verb} takes SERVER and NAME`);
  }
  return [server, name];
}

/**
 * @module The upstream servers as the web console shows them (docs/console.md#upstream-servers):
 * each server judged by the launch rules, its capabilities as last seen live by any engram
 * process (nothing is started to look) against the approvals, what agents see at each tier, the
 * audit report — and approving or revoking, recorded as operator actions with the console
 * token's client. Loaded on the first visit of the page, never at start-up.
 */
import type { EnvSnapshot } from "../config/env.ts";
import type { ResolvedConfig } from "../config/load.ts";
import { summariseAudit } from "../core/audit/audit_report.ts";
import { EngramError } from "../core/errors.ts";
import type { ApprovedKind } from "../core/ports/approval_store.ts";
import { type Tier, tierAllows, TIERS } from "../core/types.ts";
import type {
  CapabilityView,
  ConsoleUpstreams,
  ExposureView,
  UpstreamServerView,
} from "../http/console/console_deps.ts";
import { approvalOf } from "../mcp/client/approvals/capability_review.ts";
import { pinCapability, serverIdentity } from "../mcp/client/approvals/capability_pins.ts";
import { capabilityStates } from "../mcp/client/approvals/capability_states.ts";
import { sortKeys } from "../mcp/client/approvals/approvals_lockfile.ts";
import { exposurePlan } from "../mcp/client/exposure/exposure_plan.ts";
import { gatherLaunchFacts } from "../mcp/client/launch/launch_facts.ts";
import type { LaunchFacts } from "../mcp/client/launch/launch_rules.ts";
import { judgeServers } from "../mcp/client/launch/server_status.ts";
import { findEntry, loadCatalog } from "../mcp/client/upstream_catalog.ts";
import type { Runtime } from "./runtime.ts";
import { approvalBook } from "./upstream_wiring.ts";

/** How long the machine's launch facts (the sandbox probe, commands found) are reused. */
const FACTS_MS = 60_000;

/** The console's view of the upstream servers of a serving process. */
export function consoleUpstreams(
  runtime: Runtime,
  o: { config: ResolvedConfig; env: EnvSnapshot },
): ConsoleUpstreams {
  const { config } = o;
  const book = approvalBook({ config, runtime });
  const catalog = () => loadCatalog(config.mcp, runtime.upstreams);
  let facts: { at: number; facts: Promise<LaunchFacts> } | undefined;
  const launchFacts = () => {
    if (!facts || Date.now() - facts.at > FACTS_MS) {
      facts = {
        at: Date.now(),
        facts: (async () =>
          gatherLaunchFacts(config.mcp, {
            env: o.env,
            dataDir: config.dataDir,
            trustedKeys: (await runtime.upstreams.listTrustedReviewKeys()).map((k) => k.key),
          }))(),
      };
    }
    return facts.facts;
  };
  const live = async (server: string) => {
    const entry = findEntry(await catalog(), server);
    const identity = await serverIdentity(entry.config);
    const sightings = await runtime.approvals.listSightings(entry.config.name);
    const pinned = await Promise.all(
      sightings.map((s) =>
        pinCapability({ kind: s.kind, name: s.name, definition: s.definition }, identity)
      ),
    );
    return { entry, identity, sightings, pinned };
  };
  const operatorAction = (by: string, server: string, changes: string[]) =>
    runtime.audit.operatorAction({ user: by, command: "console", server, changes });

  return {
    servers: async () => {
      const views = await judgeServers(await catalog(), await launchFacts());
      return views.map((v): UpstreamServerView => ({
        name: v.entry.config.name,
        transport: v.entry.config.transport,
        origin: v.entry.origin,
        enabled: v.readiness !== "disabled",
        readiness: v.readiness,
        blocked: v.blocked
          ? { rule: v.blocked.rule, detail: v.blocked.detail, fix: v.blocked.fix }
          : null,
        checks: v.checks.map((c) => ({ rule: c.rule, ok: c.ok, detail: c.detail })),
        trust: v.entry.config.trust,
        lastStatus: v.entry.state?.last
          ? `${v.entry.state.last.status}${
            v.entry.state.last.error ? `: ${v.entry.state.last.error}` : ""
          } (${v.entry.state.last.at})`
          : null,
      }));
    },
    capabilities: async (server) => {
      const { entry, sightings, pinned } = await live(server);
      const approvals = await book.list(entry.config.name);
      // Never seen live by any process: the approvals stand as they are.
      const states = await capabilityStates(entry.config.name, {
        live: sightings.length ? pinned : null,
        approvals,
      });
      return states.map((s): CapabilityView => {
        const def = (s.live?.definition ?? s.approval?.definition ?? {}) as Record<string, unknown>;
        return {
          server: s.server,
          kind: s.kind,
          name: s.name,
          state: s.state,
          description: typeof def.description === "string" ? def.description : "",
          exposedTier: s.approval?.state === "approved" ? s.approval.expose_tier : null,
          exposedAs: s.approval?.expose_as ?? null,
          approvedBy: s.approval?.approved_by ?? null,
          approvedAt: s.approval?.approved_at ?? null,
          approved: s.approval ? pretty(s.approval.definition) : null,
          live: s.live ? pretty(s.live.definition) : null,
          renamedFrom: s.renamed_from ?? null,
        };
      });
    },
    exposure: async () => {
      const plan = await exposurePlan(await catalog(), {
        approvals: await book.list(),
        sightings: await runtime.approvals.listSightings(),
      });
      const at = (tier: Tier) => ({
        tools: plan.tools.filter((t) => tierAllows(tier, t.tier)).map((t) => t.exposed),
        prompts: plan.prompts.filter((p) => tierAllows(tier, p.tier)).map((p) => p.exposed),
        templates: plan.templates.filter((t) => tierAllows(tier, t.tier)).map((t) => t.exposed),
      });
      return {
        tiers: Object.fromEntries(TIERS.map((t) => [t, at(t)])) as ExposureView["tiers"],
        hidden: plan.hidden.map((h) => ({
          server: h.server,
          kind: h.kind,
          name: h.name,
          reason: h.reason,
          detail: h.detail,
        })),
      };
    },
    report: async (since) =>
      summariseAudit(runtime.audit.auditSamples(since), since, {
        drops: await runtime.audit.auditDrops(since),
        traces: runtime.traces.traces({ since }),
        operatorActions: runtime.audit.operatorActions(since),
      }),
    traces: (t) => runtime.traces.traces(t),
    approve: async (key, a) => {
      const { entry, identity, pinned } = await live(key.server);
      const now = pinned.find((c) => c.kind === key.kind && c.name === key.name);
      if (!now) {
        throw new EngramError(
          "conflict",
          `${entry.config.name} was not seen listing ${key.kind} ${key.name}, so there is no definition to approve; see: engram mcp discover ${entry.config.name}`,
        );
      }
      const name = entry.config.name;
      const before = await book.find({ server: name, kind: key.kind, name: key.name });
      const expose = a.expose ?? (before?.state === "approved" ? before.expose_tier : null);
      await book.put({
        ...approvalOf(name, now, { identity, expose, by: a.by, at: new Date().toISOString() }),
        ...(before?.expose_as && key.kind === "tool" ? { expose_as: before.expose_as } : {}),
      });
      await operatorAction(a.by, name, [
        `approved ${key.kind} ${key.name}${expose ? ` (exposed at ${expose})` : ""}`,
      ]);
    },
    revoke: async (key, a) => {
      const entry = findEntry(await catalog(), key.server);
      const name = entry.config.name;
      const mine = await book.find({
        server: name,
        kind: key.kind as ApprovedKind,
        name: key.name,
      });
      if (!mine || mine.state !== "approved") {
        throw new EngramError(
          mine ? "conflict" : "not_found",
          mine
            ? `${key.kind} ${name} ${key.name} is already revoked`
            : `${name} has no approval of ${key.kind} "${key.name}"; list them with: engram mcp approvals ${name}`,
        );
      }
      await book.put({ ...mine, state: "revoked", revoked_at: new Date().toISOString() });
      await operatorAction(a.by, name, [`revoked ${key.kind} ${key.name}`]);
    },
  };
}

function pretty(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

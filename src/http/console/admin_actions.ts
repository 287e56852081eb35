/**
 * @module The admin actions: upstream servers (status, capabilities with their approval state,
 * exposure, the audit report) and tokens. All need tier admin; approving and revoking need the
 * operator flag as well — an admin token may belong to an agent, and approvals are the
 * operator's alone (docs/console.md#upstream-servers). A token is never created with a tier or
 * brains beyond its creator's own.
 */
import { EngramError } from "../../core/errors.ts";
import type { TokenRecord } from "../../core/ports/token_store.ts";
import { type Tier, tierAllows } from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";
import { type ScoreSeries, scoreSeries, type ServerSeries } from "./scores/score_series.ts";
import type {
  AuditReportView,
  CapabilityView,
  ConsoleParts,
  ConsoleTokens,
  ConsoleUpstreams,
  ExposureView,
  UpstreamServerView,
} from "./console_deps.ts";

function upstreamsOf(parts: ConsoleParts): ConsoleUpstreams {
  if (!parts.upstreams) {
    throw new EngramError("not_implemented", "upstream servers are not available on this server");
  }
  return parts.upstreams;
}

function tokensOf(parts: ConsoleParts): ConsoleTokens {
  if (!parts.tokens) {
    throw new EngramError("not_implemented", "token management is not available on this server");
  }
  return parts.tokens;
}

/** Every upstream server, the exposure per tier, the audit report and scores since `since`. */
export function upstreamOverview(
  actor: ConsoleActor,
  o: { parts: ConsoleParts; since: string },
): Promise<
  {
    servers: UpstreamServerView[];
    exposure: ExposureView;
    report: AuditReportView;
    scores: ScoreSeries;
  }
> {
  return actor.action(
    "console_upstreams",
    { tier: "admin", args: { since: o.since } },
    async () => {
      const u = upstreamsOf(o.parts);
      return {
        servers: await u.servers(),
        exposure: await u.exposure(),
        report: await u.report(o.since),
        scores: await scoreSeries(u.traces({ since: o.since }), {
          since: o.since,
          until: new Date().toISOString(),
        }),
      };
    },
  );
}

/** One server: its status, capabilities, and scores since `since` (null: it had no calls). */
export function upstreamServer(
  actor: ConsoleActor,
  o: { parts: ConsoleParts; server: string; since: string },
): Promise<
  { server: UpstreamServerView; capabilities: CapabilityView[]; scores: ServerSeries | null }
> {
  return actor.action(
    "console_upstream",
    { tier: "admin", args: { server: o.server, since: o.since } },
    async () => {
      const u = upstreamsOf(o.parts);
      const server = (await u.servers()).find((s) =>
        s.name.toLowerCase() === o.server.toLowerCase()
      );
      if (!server) {
        throw new EngramError(
          "not_found",
          `no upstream server "${o.server}"; see the list on the upstream servers page`,
        );
      }
      const series = await scoreSeries(u.traces({ since: o.since, server: server.name }), {
        since: o.since,
        until: new Date().toISOString(),
      });
      return {
        server,
        capabilities: await u.capabilities(server.name),
        scores: series.servers.find((s) => s.server === server.name) ?? null,
      };
    },
  );
}

/** What approve and revoke name. */
export interface CapabilityKey {
  server: string;
  kind: CapabilityView["kind"];
  name: string;
}

/** Refuses a token without the operator flag, naming how to get one. */
function needOperator(actor: ConsoleActor, verb: string): void {
  if (actor.operator) return;
  throw new EngramError(
    "forbidden",
    `${verb} upstream capabilities is the operator's: sign in with a token made by engram tokens create --operator --tier admin (this ${actor.grant.tier} token has no operator flag), or use engram mcp approvals`,
  );
}

/** Approves the definition last seen live (operator only). */
export function approveCapability(
  actor: ConsoleActor,
  o: { parts: ConsoleParts; key: CapabilityKey; expose: Tier | null },
): Promise<void> {
  return actor.action(
    "console_approve",
    { tier: "admin", args: { ...o.key, expose: o.expose } },
    async () => {
      needOperator(actor, "approving");
      await upstreamsOf(o.parts).approve(o.key, {
        expose: o.expose,
        by: `console:${actor.grant.clientId}`,
      });
    },
  );
}

/** Revokes an approval (operator only). */
export function revokeCapability(
  actor: ConsoleActor,
  o: { parts: ConsoleParts; key: CapabilityKey },
): Promise<void> {
  return actor.action("console_revoke", { tier: "admin", args: o.key }, async () => {
    needOperator(actor, "revoking");
    await upstreamsOf(o.parts).revoke(o.key, { by: `console:${actor.grant.clientId}` });
  });
}

/** Every token (never a secret or hash). */
export function listTokens(actor: ConsoleActor, parts: ConsoleParts): Promise<TokenRecord[]> {
  return actor.action("console_tokens", { tier: "admin", args: {} }, () => tokensOf(parts).list());
}

/**
 * Creates a token, never beyond the creator: a tier at most its own, brains within its own (its
 * own when none are named), its tool list when it has one; never the operator flag.
 */
export function createToken(
  actor: ConsoleActor,
  o: { parts: ConsoleParts; client: string; tier: Tier; brains?: string[] },
): Promise<{ token: string; record: TokenRecord }> {
  return actor.action("console_token_create", {
    tier: "admin",
    args: { client: o.client, tier: o.tier, brains: o.brains },
  }, async () => {
    const g = actor.grant;
    if (!tierAllows(g.tier, o.tier)) {
      throw new EngramError(
        "forbidden",
        `cannot create a ${o.tier} token with a ${g.tier} token; a token is never above its creator`,
      );
    }
    let brains = o.brains;
    if (g.brains !== "*") {
      const mine = await actor.deps.service.listBrains(actor.caller);
      const ids: string[] = [];
      for (const ref of brains ?? mine.map((b) => b.id)) {
        const b = mine.find((m) => m.id === ref || m.slug === ref);
        if (!b) {
          throw new EngramError(
            "forbidden",
            `brain "${ref}" is not among this token's brains (${
              mine.map((m) => m.slug).join(", ")
            })`,
          );
        }
        ids.push(b.id);
      }
      brains = ids;
    }
    return await tokensOf(o.parts).create({
      client: o.client,
      tier: o.tier,
      ...(brains ? { brains } : {}),
      ...(g.tools ? { tools: g.tools } : {}),
    });
  });
}

/** Revokes a token. */
export function revokeToken(
  actor: ConsoleActor,
  o: { parts: ConsoleParts; id: string },
): Promise<TokenRecord> {
  return actor.action(
    "console_token_revoke",
    { tier: "admin", args: { id: o.id } },
    () => tokensOf(o.parts).revoke(o.id),
  );
}

/** @module The admin routes: upstream servers and tokens, pages and API (tier admin). */
import { z } from "zod";
import { ageOrTime } from "../../core/age_or_time.ts";
import { EngramError } from "../../core/errors.ts";
import { parseInput } from "../../core/validate.ts";
import {
  approveCapability,
  createToken,
  listTokens,
  revokeCapability,
  revokeToken,
  upstreamOverview,
  upstreamServer,
} from "./admin_actions.ts";
import { apiJson, jsonBody } from "./console_http.ts";
import type { ConsoleRequest, ConsoleRoute } from "./console_request.ts";
import { markup, seg } from "./html.ts";
import { upstreamBody, upstreamsBody } from "./pages_admin.ts";
import { tokensBody } from "./pages_tokens.ts";
import { consolePage } from "./routes_memory.ts";
import { serverScores, serversScores } from "./scores/score_pages.ts";

/** The events the upstream pages follow: status changes (docs/console.md#live-updates). */
const UPSTREAM_EVENTS = "/console/events?upstreams=1";

const Tier = z.enum(["read", "write", "admin"]);
const CapabilityBody = z.object({
  kind: z.enum(["tool", "prompt", "template"]),
  name: z.string().min(1).max(256),
  expose: Tier.nullable().optional(),
}).strict();
const TokenBody = z.object({
  client: z.string().min(1).max(128),
  tier: Tier,
  brains: z.array(z.string().min(1).max(128)).min(1).max(256).optional(),
}).strict();

/** `?since=` as written; default 7 days. */
function sinceParam(r: ConsoleRequest): string {
  return r.url.searchParams.get("since") || "7d";
}

/** `?since=` as a time: a duration back from now (7d) or RFC 3339; default 7 days. */
function sinceOf(r: ConsoleRequest): string {
  const v = sinceParam(r);
  const at = ageOrTime(v, { now: new Date() });
  if (at === null) {
    throw new EngramError(
      "invalid_argument",
      `since "${v}" is neither a duration (30m, 12h, 7d) nor a time`,
    );
  }
  return at;
}

async function capabilityArgs(r: ConsoleRequest) {
  const body = parseInput(
    CapabilityBody,
    await jsonBody(r.req, r.settings.max_body_bytes),
    "console approval",
  );
  return {
    key: { server: r.params.server, kind: body.kind, name: body.name },
    expose: body.expose ?? null,
  };
}

/** The admin routes. */
export const ADMIN_ROUTES: readonly ConsoleRoute[] = [
  {
    method: "GET",
    pattern: "console/upstreams",
    handler: async (r) => {
      const view = await upstreamOverview(r.actor, { parts: r.parts, since: sinceOf(r) });
      return consolePage(r, {
        title: "Upstream servers",
        current: "upstreams",
        live: UPSTREAM_EVENTS,
        body: markup`${upstreamsBody(view)}${serversScores(view.scores, { since: sinceParam(r) })}`,
      });
    },
  },
  {
    method: "GET",
    pattern: "console/upstreams/:server",
    handler: async (r) => {
      const view = await upstreamServer(r.actor, {
        parts: r.parts,
        server: r.params.server,
        since: sinceOf(r),
      });
      return consolePage(r, {
        title: `Upstream server ${view.server.name}`,
        current: "upstreams",
        live: UPSTREAM_EVENTS,
        body: markup`${upstreamBody(r.actor, view)}${
          serverScores(view.scores, {
            path: `/console/upstreams/${seg(view.server.name)}`,
            since: sinceParam(r),
          })
        }`,
      });
    },
  },
  {
    method: "GET",
    pattern: "console/tokens",
    handler: async (r) => {
      const tokens = await listTokens(r.actor, r.parts);
      const brains = await r.actor.deps.service.listBrains(r.actor.caller);
      return consolePage(r, {
        title: "Tokens",
        current: "tokens",
        body: tokensBody(r.actor, { tokens, brains }),
      });
    },
  },
  {
    method: "GET",
    pattern: "console/api/upstreams",
    handler: async (r) =>
      apiJson(await upstreamOverview(r.actor, { parts: r.parts, since: sinceOf(r) })),
  },
  {
    method: "GET",
    pattern: "console/api/upstreams/:server",
    handler: async (r) =>
      apiJson(
        await upstreamServer(r.actor, {
          parts: r.parts,
          server: r.params.server,
          since: sinceOf(r),
        }),
      ),
  },
  {
    method: "POST",
    pattern: "console/api/upstreams/:server/approve",
    handler: async (r) => {
      const a = await capabilityArgs(r);
      await approveCapability(r.actor, { parts: r.parts, key: a.key, expose: a.expose });
      return apiJson({ approved: a.key });
    },
  },
  {
    method: "POST",
    pattern: "console/api/upstreams/:server/revoke",
    handler: async (r) => {
      const a = await capabilityArgs(r);
      await revokeCapability(r.actor, { parts: r.parts, key: a.key });
      return apiJson({ revoked: a.key });
    },
  },
  {
    method: "GET",
    pattern: "console/api/tokens",
    handler: async (r) => apiJson({ items: await listTokens(r.actor, r.parts) }),
  },
  {
    method: "POST",
    pattern: "console/api/tokens",
    handler: async (r) => {
      const body = parseInput(
        TokenBody,
        await jsonBody(r.req, r.settings.max_body_bytes),
        "console token",
      );
      return apiJson(await createToken(r.actor, { parts: r.parts, ...body }));
    },
  },
  {
    method: "POST",
    pattern: "console/api/tokens/:id/revoke",
    handler: async (r) => apiJson(await revokeToken(r.actor, { parts: r.parts, id: r.params.id })),
  },
];

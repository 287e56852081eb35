/**
 * @module The web console of `engram serve` (docs/console.md): its assets and sign-in page are
 * public; everything else needs a session. Signing in exchanges an engram token for an HttpOnly,
 * SameSite=Strict cookie; every request then verifies that token again (so revoking it ends the
 * session), takes from the token's rate limit, and acts as the token. Every write to
 * `/console/api/` must come from this origin and carry the session's CSRF header.
 */
import { EngramError, toEngramError } from "../../core/errors.ts";
import { concealInternal } from "../../core/internal_errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { TokenGrant, VerifyToken } from "../auth.ts";
import type { HttpSettings } from "../context.ts";
import { RateLimiter } from "../rate_limit.ts";
import { statusFor } from "../responses.ts";
import { ConsoleActor, type ConsoleMcpDeps } from "./console_actor.ts";
import { ASSET_PREFIX, assetResponse } from "./console_assets.ts";
import type { ConsoleParts } from "./console_deps.ts";
import {
  apiError,
  apiJson,
  COOKIE,
  cookieOf,
  csrfProblem,
  htmlResponse,
  jsonBody,
  redirect,
  sameOriginWrite,
  securityHeaders,
  sessionCookie,
} from "./console_http.ts";
import { type ConsoleSession, ConsoleSessions, SESSION_MAX_MS } from "./console_sessions.ts";
import { markup } from "./html.ts";
import { notice, page } from "./layout.ts";
import { type ConsoleRequest, matchRoute } from "./console_request.ts";
import { consoleRoutes } from "./console_routes.ts";
import type { OpenStreams } from "./live_actions.ts";

/** What the console is built from. */
export interface ConsoleOptions {
  settings: HttpSettings;
  mcp: ConsoleMcpDeps;
  verifyToken: VerifyToken;
  /** `--insecure-no-auth`: signing in takes any token, as `anonymous`. */
  anonymous: boolean;
  parts: ConsoleParts;
  /** The app's per-client rate limit: 0, or the seconds to wait. */
  take: (clientId: string) => number;
  logger: Logger;
  now?: () => number;
}

/** The console's request handler and its session table. */
export interface Console {
  handle(req: Request, info?: Deno.ServeHandlerInfo): Promise<Response>;
  sessions: ConsoleSessions;
  /** Ends the open event streams (at shutdown: they would otherwise last until their jobs end). */
  endStreams(): void;
}

/** Sign-in attempts an address may make a minute (a token is 256 bits; this keeps logs quiet). */
const SIGN_INS_PER_MINUTE = 30;
/** A sign-in body is one token. */
const SIGN_IN_BYTES = 4096;

/** Whether a path belongs to the console (`/` sends a browser there). */
export function isConsolePath(path: string): boolean {
  return path === "/" || path === "/console" || path.startsWith("/console/");
}

/** The console's own origin: the public URL's, else the one the request reached. */
export function consoleOrigin(req: Request, settings: HttpSettings): string {
  return settings.public_url ? new URL(settings.public_url).origin : new URL(req.url).origin;
}

/** Builds the console. */
export function createConsole(o: ConsoleOptions): Console {
  const sessions = new ConsoleSessions({
    idleMs: o.settings.session_idle_ms,
    perClient: o.settings.max_sessions_per_client,
    now: o.now,
  });
  const streams: OpenStreams = new Set();
  const routes = consoleRoutes(streams);
  const signIns = new RateLimiter(SIGN_INS_PER_MINUTE, { now: o.now });
  const secure = o.settings.public_url?.startsWith("https:") ?? false;
  const cookie = (secret: string | null) =>
    sessionCookie(secret, { secure, maxAgeS: SESSION_MAX_MS / 1000 });
  const ownOrigin = (req: Request) => consoleOrigin(req, o.settings);

  const signIn = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const refused = sameOriginWrite(req, ownOrigin(req));
    if (refused) return apiError(refused);
    const address = info && "hostname" in info.remoteAddr ? info.remoteAddr.hostname : "local";
    const wait = signIns.take(address);
    if (wait > 0) {
      return apiError(
        new EngramError("rate_limited", `too many sign-in attempts; try again in ${wait} s`),
        { headers: { "Retry-After": String(wait) } },
      );
    }
    const body = await jsonBody(req, SIGN_IN_BYTES);
    const token = typeof body.token === "string" ? body.token.trim() : "";
    if (!token && !o.anonymous) {
      return apiError(
        new EngramError("invalid_argument", "paste a token from engram tokens create"),
      );
    }
    const grant = await o.verifyToken(token);
    if (!grant) {
      return apiError(
        new EngramError(
          "forbidden",
          "invalid or revoked token; create one with: engram tokens create --client NAME --tier read",
        ),
        { headers: { "Set-Cookie": cookie(null) } },
      );
    }
    const previous = cookieOf(req, COOKIE);
    if (previous) sessions.close(previous);
    const { secret, session } = sessions.open({ token, clientId: grant.clientId });
    await new ConsoleActor(o.mcp, { grant, sessionId: session.id }).action("console_sign_in", {
      tier: "read",
      args: {},
    }, () => Promise.resolve(null));
    return apiJson(
      { client_id: grant.clientId, tier: grant.tier, csrf: session.csrf },
      { headers: { "Set-Cookie": cookie(secret) } },
    );
  };

  /** The session and the grant of its token, or null (no cookie, expired, token revoked). */
  const signedIn = async (
    req: Request,
  ): Promise<{ session: ConsoleSession; grant: TokenGrant; secret: string } | null> => {
    const secret = cookieOf(req, COOKIE);
    const session = secret ? sessions.find(secret) : null;
    if (!secret || !session) return null;
    const grant = await o.verifyToken(session.token);
    if (!grant || grant.clientId !== session.clientId) {
      sessions.close(secret);
      return null;
    }
    return { session, grant, secret };
  };

  const route = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname;
    if (path === "/" || path === "/console") return redirect("/console/");
    if (path.startsWith(ASSET_PREFIX)) {
      return assetResponse(path, securityHeaders()) ?? notFoundPage();
    }
    const api = path.startsWith("/console/api/") || path === "/console/events";
    if (path === "/console/api/session" && req.method === "POST") return await signIn(req, info);
    if (path === "/console/sign-in") {
      return htmlResponse(page({ title: "Sign in", body: signInBody(url) }));
    }
    const auth = await signedIn(req);
    if (!auth) {
      if (api) {
        return apiError(
          new EngramError("forbidden", "not signed in, or the session ended; sign in again"),
          { headers: { "Set-Cookie": cookie(null) } },
        );
      }
      const next = path + url.search;
      return redirect(`/console/sign-in?next=${encodeURIComponent(next)}`);
    }
    const wait = o.take(auth.grant.clientId);
    if (wait > 0) {
      return apiError(
        new EngramError(
          "rate_limited",
          `rate limit: ${o.settings.requests_per_minute} requests per minute`,
        ),
        { headers: { "Retry-After": String(wait) } },
      );
    }
    const write = req.method !== "GET" && req.method !== "HEAD";
    if (write) {
      const refused = !api
        ? new EngramError("invalid_argument", `${req.method} is not served on console pages`)
        : sameOriginWrite(req, ownOrigin(req)) ?? csrfProblem(req, auth.session.csrf);
      if (refused) return apiError(refused);
    }
    const actor = new ConsoleActor(o.mcp, { grant: auth.grant, sessionId: auth.session.id });
    if (path === "/console/api/session" && req.method === "DELETE") {
      await actor.action(
        "console_sign_out",
        { tier: "read", args: {} },
        () => Promise.resolve(null),
      );
      sessions.close(auth.secret);
      return apiJson({ signed_out: true }, { headers: { "Set-Cookie": cookie(null) } });
    }
    const match = matchRoute(routes, req.method, path);
    if (!match) {
      return api
        ? apiError(new EngramError("not_found", `no console API ${req.method} ${path}`))
        : notFoundPage(actor, auth.session.csrf);
    }
    const r: ConsoleRequest = {
      req,
      url,
      params: match.params,
      actor,
      csrf: auth.session.csrf,
      parts: o.parts,
      settings: o.settings,
      alive: async () => {
        if (!sessions.live(auth.secret)) return false;
        const grant = await o.verifyToken(auth.session.token).catch(() => null);
        return grant !== null && grant.clientId === auth.session.clientId;
      },
    };
    try {
      return await match.route.handler(r);
    } catch (err) {
      const e = concealInternal(toEngramError(err), {
        logger: o.logger,
        what: `console ${req.method} ${path}`,
      });
      return api ? apiError(e) : errorPage(e, { actor, csrf: auth.session.csrf });
    }
  };

  return {
    sessions,
    endStreams: () => {
      for (const s of streams) s.close();
      streams.clear();
    },
    handle: async (req, info) => {
      try {
        return await route(req, info);
      } catch (err) {
        const e = concealInternal(toEngramError(err), {
          logger: o.logger,
          what: `console ${req.method} ${new URL(req.url).pathname}`,
        });
        return apiError(e);
      }
    },
  };
}

function signInBody(url: URL) {
  const next = url.searchParams.get("next") ?? "/console/";
  // Only a path of the console itself: never an open redirect to another site.
  const safeNext = /^\/console\/[^\\]*$/.test(next) && !next.startsWith("//") ? next : "/console/";
  return markup`
    <form class="sign-in" data-action="sign-in" data-then="${safeNext}">
      <p>Paste an engram token (<code>engram tokens create --client NAME --tier read|write|admin</code>). It is
    exchanged for a session cookie; the token itself stays on the server.</p>
      <label for="token">Token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
      <p class="form-status" role="status" aria-live="polite"></p>
      <button type="submit">Sign in</button>
    </form>
  `;
}

/** A page for an error, with the status of its code. */
export function errorPage(
  e: EngramError,
  o: { actor?: ConsoleActor; csrf?: string },
): Response {
  const status = statusFor(e.code);
  return htmlResponse(
    page({
      title: status === 404 ? "Not found" : status === 403 ? "Not allowed" : "Something failed",
      actor: o.actor,
      csrf: o.csrf,
      body: markup`${notice("error", `${e.code}: ${e.remote ?? e.message}`)}
<p><a href="/console/">Back to the brains</a></p>`,
    }),
    { status },
  );
}

function notFoundPage(actor?: ConsoleActor, csrf?: string): Response {
  return errorPage(new EngramError("not_found", "no such console page"), { actor, csrf });
}

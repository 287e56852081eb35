/** @module The HTTP app: routing, then Origin/Host, auth and rate checks in front of the MCP transports. */
import { concealInternal } from "../core/internal_errors.ts";
import { type Logger, silentLogger } from "../core/logger.ts";
import { selectTools } from "../mcp/server/tool_selection.ts";
import { createSessionServer, type ServerDeps } from "../mcp/server/factory.ts";
import {
  authenticate,
  RESOURCE_METADATA_PATH,
  resourceMetadata,
  type TokenGrant,
  type VerifyToken,
} from "./auth.ts";
import type { HttpContext, HttpSettings } from "./context.ts";
import { healthz, readyz } from "./health.ts";
import { handleSseMessage, handleSseOpen, MESSAGES_PATH } from "./legacy_sse.ts";
import { checkOriginHost, originHostPolicy } from "./origin_host.ts";
import { RateLimiter } from "./rate_limit.ts";
import { jsonError, statusFor } from "./responses.ts";
import { type HttpSession, SessionRegistry } from "./sessions.ts";
import { handleMcp } from "./streamable_http.ts";
import { consoleOrigin, createConsole, isConsolePath } from "./console/console_app.ts";
import type { ConsoleParts } from "./console/console_deps.ts";
import type { AuthorizationServer } from "../core/oauth/authorization_types.ts";
import { createOAuthEndpoints } from "./oauth/oauth_endpoints.ts";

/** What the HTTP app is built from. */
export interface HttpAppOptions {
  /** The `server:` config section. */
  settings: HttpSettings;
  /**
   * Everything a session's MCP server needs except the caller, which comes from the token. Never
   * `clientRoots`: an HTTP client's roots name files on its own machine, not this one.
   */
  mcp: Omit<ServerDeps, "caller" | "clientRoots">;
  verifyToken: VerifyToken;
  /** `--insecure-no-auth`: requests without a token reach `verifyToken` too. */
  anonymous?: boolean;
  /** Whether the database answers (for /readyz). */
  ready: () => Promise<boolean>;
  logger?: Logger;
  /** Called with each new session (tests push notifications through it). */
  onSession?: (session: HttpSession) => void;
  /** Called when a session ends (DELETE, stream closed, idle expiry, shutdown). */
  onSessionClosed?: (session: HttpSession) => void;
  /** Clock for idle expiry and rate limiting (tests move it). */
  now?: () => number;
  /** The web console's optional parts: tokens, uploads, upstream servers (docs/console.md). */
  console?: ConsoleParts;
  /**
   * engram's own authorization server, with `server.oauth.enabled` (the config guarantees a
   * `server.public_url`, its issuer): its endpoints are routed only then (docs/connectors.md).
   */
  oauth?: { server: AuthorizationServer; describeScope?: (scope: string | null) => string };
}

/** A request handler for Deno.serve that can also close every session it holds. */
export type HttpApp =
  & ((req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response>)
  & {
    /** Live sessions. */
    sessions: SessionRegistry;
    /** Ends the streams that never finish on their own (GET streams, idle legacy SSE streams). */
    endIdleStreams(): void;
    /** Closes every session and its streams. */
    close(): Promise<void>;
  };

/** Builds the app. Nothing listens until it is handed to `serveHttp` (or Deno.serve). */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const logger = options.logger ?? silentLogger;
  const sessions = new SessionRegistry({
    idleMs: options.settings.session_idle_ms,
    now: options.now,
    onClosed: options.onSessionClosed,
  });
  const limiter = new RateLimiter(options.settings.requests_per_minute, { now: options.now });
  const oauth = options.oauth
    ? createOAuthEndpoints({
      ...options.oauth,
      publicUrl: options.settings.public_url,
      trustedProxies: options.settings.trusted_proxies,
      now: options.now,
    })
    : null;
  const policy = originHostPolicy(options.settings.host, {
    // The consent page posts from engram's own public origin.
    allowedOrigins: oauth
      ? [...options.settings.allowed_origins, oauth.origin]
      : options.settings.allowed_origins,
    allowedHosts: options.settings.allowed_hosts,
  });
  const ctx: HttpContext = {
    settings: options.settings,
    sessions,
    logger,
    newServer: (caller, o) =>
      createSessionServer({
        ...options.mcp,
        caller,
        onClose: o.onClose,
        // The config's selection and the token's own: a tool must be in both.
        toolSelection: selectTools(...(options.mcp.toolSelection?.lists ?? []), o.tools),
      }),
    onSession: options.onSession,
  };

  const webConsole = createConsole({
    settings: options.settings,
    mcp: options.mcp,
    verifyToken: options.verifyToken,
    anonymous: options.anonymous ?? false,
    parts: options.console ?? {},
    take: (clientId) => limiter.take(clientId),
    logger,
    now: options.now,
  });

  const guarded = async (
    req: Request,
    handler: (req: Request, o: { ctx: HttpContext; grant: TokenGrant }) => Promise<Response>,
  ): Promise<Response> => {
    const auth = await authenticate(req, {
      verify: options.verifyToken,
      baseUrl: baseUrl(req, options.settings),
      anonymous: options.anonymous ?? false,
    });
    if (auth instanceof Response) return auth;
    const wait = limiter.take(auth.clientId);
    if (wait > 0) {
      return jsonError(
        429,
        `rate limit: ${options.settings.requests_per_minute} requests per minute`,
        {
          headers: { "Retry-After": String(wait) },
        },
      );
    }
    return await handler(req, { ctx, grant: auth });
  };

  const route = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const path = new URL(req.url).pathname;
    // Supervisors probe by address; these two say nothing, so they skip the Host check.
    if (path === "/healthz") return healthz();
    if (path === "/readyz") return readyz(options.ready);
    const answered = await oauth?.handle(req, { info, policy, path });
    if (answered) return answered;
    const own = isConsolePath(path) ? consoleOrigin(req, options.settings) : undefined;
    const refused = checkOriginHost(req, policy, { ownOrigin: own });
    if (refused) return refused;
    if (own !== undefined) return await webConsole.handle(req, info);
    if (path === RESOURCE_METADATA_PATH || path === `${RESOURCE_METADATA_PATH}/mcp`) {
      return resourceMetadata(baseUrl(req, options.settings));
    }
    if (path === "/mcp") return await guarded(req, handleMcp);
    if (path === "/sse") return await guarded(req, handleSseOpen);
    if (path === MESSAGES_PATH) return await guarded(req, handleSseMessage);
    return jsonError(404, "Not Found");
  };

  const app = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    try {
      return await route(req, info);
    } catch (err) {
      const e = concealInternal(err, {
        logger,
        what: `HTTP ${req.method} ${new URL(req.url).pathname}`,
      });
      return jsonError(
        statusFor(e.code),
        e.code === "internal" ? `internal: ${e.message}` : e.message,
      );
    }
  };
  return Object.assign(app, {
    sessions,
    endIdleStreams: () => {
      sessions.endIdleStreams();
      webConsole.endStreams();
    },
    close: () => sessions.closeAll(),
  });
}

/** The base URL clients reach this server at: the configured public URL, else the request's origin. */
function baseUrl(req: Request, settings: HttpSettings): string {
  return (settings.public_url ?? new URL(req.url).origin).replace(/\/+$/, "");
}

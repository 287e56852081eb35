/**
 * @module engram serve as its own OAuth authorization server (docs/connectors.md): routes the
 * metadata, /register, /authorize and /token, with CORS where browser-based clients need it and
 * per-address rate limits where anyone may call without a token.
 */
import { EngramError } from "../../core/errors.ts";
import { type AuthorizationServer, TIER_SCOPES } from "../../core/oauth/authorization_types.ts";
import { requestedTier } from "../../core/oauth/scopes.ts";
import { RESOURCE_METADATA_PATH, resourceMetadata } from "../auth.ts";
import { checkOriginHost, type OriginHostPolicy } from "../origin_host.ts";
import { AddressLimiter } from "./address_limiter.ts";
import { authorizeGet, authorizePost } from "./authorize_endpoint.ts";
import { consentCss } from "./consent_page.ts";
import { ConsentCsrf } from "./csrf.ts";
import { metadataResponse, OAUTH_PATHS } from "./metadata.ts";
import { CORS_HEADERS, methodNotAllowed, preflight } from "./oauth_responses.ts";
import { registerEndpoint } from "./register_endpoint.ts";
import { addressKey, clientAddress, parseTrustedProxies } from "./remote_address.ts";
import { tokenEndpoint } from "./token_endpoint.ts";

/** Rate limits per remote address, per minute (docs/connectors.md#rate-limits). */
export const OAUTH_RATE_LIMITS = { register: 10, authorize: 20, token: 60 } as const;

/** What the endpoints are built from. */
export interface OAuthEndpointsOptions {
  server: AuthorizationServer;
  /** `server.public_url`: the issuer (the config refuses OAuth without one). */
  publicUrl: string | undefined;
  /** `server.trusted_proxies`. */
  trustedProxies: readonly string[];
  /** Words for what a request's `scope` asks, on the consent page. */
  describeScope?: (scope: string | null) => string;
  /** Clock for rate limits and the consent page's expiry (tests move it). */
  now?: () => number;
}

/** The OAuth routes of one app. */
export interface OAuthEndpoints {
  /** engram's public origin, whose pages (the consent form) pass the Origin check. */
  origin: string;
  /**
   * The answer for an OAuth path, or null when the path is not one of them. `path` is the request
   * URL's pathname, which the app has already parsed for every request.
   */
  handle(
    req: Request,
    o: { info?: Deno.ServeHandlerInfo; policy: OriginHostPolicy; path: string },
  ): Promise<Response | null>;
}

/** What a request's scope asks, in words: a tier scope (docs/connectors.md#scopes), or none. */
function defaultDescribeScope(scope: string | null): string {
  const tier = requestedTier(scope);
  return tier === null
    ? "no tier in particular: it gets the tier of the token or pairing code you enter"
    : `tier ${tier} (scope ${TIER_SCOPES[tier]})`;
}

/** Builds the routes; nothing is shared with other apps. */
export function createOAuthEndpoints(options: OAuthEndpointsOptions): OAuthEndpoints {
  const { server } = options;
  if (options.publicUrl === undefined) {
    throw new EngramError(
      "invalid_argument",
      "server.oauth.enabled needs server.public_url, the https URL clients reach engram at",
    );
  }
  const issuer = options.publicUrl.replace(/\/+$/, "");
  const now = options.now;
  const limiters = {
    register: new AddressLimiter(OAUTH_RATE_LIMITS.register, { now }),
    authorize: new AddressLimiter(OAUTH_RATE_LIMITS.authorize, { now }),
    token: new AddressLimiter(OAUTH_RATE_LIMITS.token, { now }),
  };
  const proxies = parseTrustedProxies(options.trustedProxies);
  const csrf = new ConsentCsrf({ secure: issuer.startsWith("https:"), now });
  const authorizeDeps = {
    server,
    csrf,
    issuer,
    limiter: limiters.authorize,
    describeScope: options.describeScope ?? defaultDescribeScope,
  };
  const remoteOf = (req: Request, info?: Deno.ServeHandlerInfo) => {
    const addr = info?.remoteAddr as Deno.NetAddr | undefined;
    const remote = clientAddress(req, {
      peer: addr?.hostname ?? "unknown",
      trustedProxies: proxies,
    });
    return { remote, remoteKey: addressKey(remote) };
  };

  /** Endpoints browser-based clients call from other origins: the Host check only, and CORS. */
  const crossOrigin = async (
    req: Request,
    o: { policy: OriginHostPolicy; methods: readonly string[]; run: () => Promise<Response> },
  ): Promise<Response> => {
    const refused = checkOriginHost(req, o.policy, { skipOrigin: true });
    if (refused) return refused;
    if (req.method === "OPTIONS") return preflight(o.methods);
    if (!o.methods.includes(req.method)) return methodNotAllowed(o.methods);
    return await o.run();
  };

  return {
    origin: new URL(issuer).origin,
    handle(req, { info, policy, path }) {
      switch (path) {
        case OAUTH_PATHS.metadata:
          return crossOrigin(req, {
            policy,
            methods: ["GET"],
            run: () => Promise.resolve(metadataResponse(issuer)),
          });
        case RESOURCE_METADATA_PATH:
        case `${RESOURCE_METADATA_PATH}/mcp`:
          return crossOrigin(req, {
            policy,
            methods: ["GET"],
            run: () =>
              Promise.resolve(
                withCors(resourceMetadata(issuer, { authorizationServers: [issuer] })),
              ),
          });
        case OAUTH_PATHS.register:
          return crossOrigin(req, {
            policy,
            methods: ["POST"],
            run: () =>
              registerEndpoint(req, { server, limiter: limiters.register, ...remoteOf(req, info) }),
          });
        case OAUTH_PATHS.token:
          return crossOrigin(req, {
            policy,
            methods: ["POST"],
            run: () =>
              tokenEndpoint(req, {
                server,
                limiter: limiters.token,
                remoteKey: remoteOf(req, info).remoteKey,
              }),
          });
        case OAUTH_PATHS.authorize: {
          // The consent page is engram's own: the full Origin check applies (engram's public
          // origin is allowed), and no other origin may read or post it.
          const refused = checkOriginHost(req, policy);
          if (refused) return Promise.resolve(refused);
          if (req.method === "GET") return authorizeGet(req, authorizeDeps);
          if (req.method === "POST") {
            return authorizePost(req, {
              deps: authorizeDeps,
              remoteKey: remoteOf(req, info).remoteKey,
            });
          }
          return Promise.resolve(
            new Response("use GET or POST", { status: 405, headers: { Allow: "GET, POST" } }),
          );
        }
        case OAUTH_PATHS.consentCss:
          return Promise.resolve(consentCss());
        default:
          return Promise.resolve(null);
      }
    },
  };
}

function withCors(res: Response): Response {
  for (const [k, v] of Object.entries(CORS_HEADERS)) res.headers.set(k, v);
  return res;
}

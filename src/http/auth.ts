/** @module Bearer-token authentication for the HTTP transports and the protected-resource metadata. */
import type { TokenGrant } from "../core/bearer_tokens.ts";
import type { Tier } from "../core/types.ts";
import { jsonError } from "./responses.ts";

/** What a valid token grants (client id, tier, brains). */
export type { TokenGrant };

/** Resolves a presented bearer token to its grant, or null when it is unknown or revoked. */
export type VerifyToken = (token: string) => Promise<TokenGrant | null>;

/** The client id every caller gets under `--insecure-no-auth`. */
export const ANONYMOUS_CLIENT = "anonymous";

/** Path of the OAuth protected-resource metadata (RFC 9728). */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** A verifier that admits everyone as `anonymous` at `tier` (loopback development only). */
export function anonymousVerifier(tier: Tier): VerifyToken {
  const grant: TokenGrant = { tokenId: "none", clientId: ANONYMOUS_CLIENT, tier, brains: "*" };
  return () => Promise.resolve(grant);
}

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.get("authorization");
  const match = header?.match(/^Bearer[ \t]+([!-~]+)[ \t]*$/i);
  return match ? match[1] : null;
}

/** Authenticates a request: the grant, or the 401 to send back. */
export async function authenticate(
  req: Request,
  options: { verify: VerifyToken; baseUrl: string; anonymous: boolean },
): Promise<TokenGrant | Response> {
  // Under --insecure-no-auth the verifier ignores the token, so a missing header must not block.
  const token = bearerToken(req) ?? (options.anonymous ? "" : null);
  const grant = token === null ? null : await options.verify(token);
  if (grant) return grant;
  const metadata = `${options.baseUrl}${RESOURCE_METADATA_PATH}`;
  // RFC 6750: a request without credentials gets no error code; a rejected token gets invalid_token.
  const challenge = token === null
    ? `Bearer resource_metadata="${metadata}"`
    : `Bearer error="invalid_token", resource_metadata="${metadata}"`;
  return jsonError(401, token === null ? "missing bearer token" : "invalid or revoked token", {
    headers: { "WWW-Authenticate": challenge },
  });
}

/**
 * The protected-resource metadata document: which resource this is, how to present tokens, and
 * (with `server.oauth.enabled`) which authorization server issues them.
 */
export function resourceMetadata(
  baseUrl: string,
  options: { authorizationServers?: string[] } = {},
): Response {
  return Response.json({
    resource: `${baseUrl}/mcp`,
    ...(options.authorizationServers
      ? { authorization_servers: options.authorizationServers }
      : {}),
    bearer_methods_supported: ["header"],
    resource_name: "engram",
  }, { headers: { "Cache-Control": "no-store" } });
}

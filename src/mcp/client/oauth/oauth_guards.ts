/**
 * @module The checks engram adds to the SDK's OAuth client before it talks to an authorization
 * server (docs/upstream.md#where-engram-differs-from-the-spec). The SDK refuses an authorization
 * server that lists PKCE methods without S256, checks a protected resource against the server URL
 * and never follows a redirect to another origin; engram also refuses one that does not list S256
 * at all, an endpoint over plain http off loopback, metadata whose issuer or location is on another
 * origin than the one it describes, and a resource that is not this server — each named.
 */
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import { checkResourceAllowed, type OAuthDiscoveryState } from "../../sdk_client.ts";
import { OAuthCheckError, upstreamWords } from "./oauth_errors.ts";

/** Whether `hostname` (as `URL.hostname` gives it) is this machine: localhost, 127/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Checks what discovery found for `server` before any registration, authorization or token
 * request goes out: the issuer's origin, PKCE S256, https endpoints, the protected resource.
 * Metadata may be missing altogether (the 2025-03-26 fallback: endpoints at the server's root);
 * then only the endpoints' scheme is checked.
 */
export function checkDiscovery(server: HttpServerConfig, state: OAuthDiscoveryState): void {
  const at = new URL(state.authorizationServerUrl);
  if (state.resourceMetadataUrl) {
    checkResourceMetadataUrl(server, new URL(state.resourceMetadataUrl));
  }
  const resource = state.resourceMetadata?.resource;
  if (resource !== undefined) checkResource(server, resource);
  const metadata = state.authorizationServerMetadata;
  if (!metadata) {
    checkEndpoint(server, "token endpoint", new URL("/token", at));
    return;
  }
  const issuer = parseUrl(metadata.issuer);
  if (!issuer || issuer.origin !== at.origin) {
    throw new OAuthCheckError(
      server.name,
      "metadata_origin",
      `the authorization server metadata fetched for ${at.origin} names issuer ${
        upstreamWords(metadata.issuer)
      }`,
    );
  }
  const methods = metadata.code_challenge_methods_supported;
  if (!methods?.includes("S256")) {
    throw new OAuthCheckError(
      server.name,
      "pkce_s256",
      `${at.origin} lists code_challenge_methods_supported ${
        methods ? upstreamWords(JSON.stringify(methods)) : "not at all"
      }, without S256`,
    );
  }
  checkEndpoint(server, "token endpoint", parseUrl(metadata.token_endpoint));
  checkEndpoint(server, "authorization endpoint", parseUrl(metadata.authorization_endpoint));
  if (metadata.registration_endpoint !== undefined) {
    checkEndpoint(server, "registration endpoint", parseUrl(metadata.registration_endpoint));
  }
}

/**
 * The protected-resource metadata a server points to (`resource_metadata` in its
 * `WWW-Authenticate`) must be on the server's own origin; checked before it is fetched.
 */
export function checkResourceMetadataUrl(server: HttpServerConfig, url: URL): void {
  const origin = new URL(server.url).origin;
  if (url.origin === origin) return;
  throw new OAuthCheckError(
    server.name,
    "metadata_origin",
    `${origin} points to its protected-resource metadata at ${
      upstreamWords(url.origin)
    }, another origin`,
  );
}

/** The resource the metadata names must be the server's URL or a path above it (RFC 9728 §3.3). */
function checkResource(server: HttpServerConfig, resource: string): void {
  const requested = new URL(server.url);
  requested.hash = "";
  const named = parseUrl(resource);
  if (named && checkResourceAllowed({ requestedResource: requested, configuredResource: named })) {
    return;
  }
  throw new OAuthCheckError(
    server.name,
    "resource",
    `its protected-resource metadata names ${upstreamWords(resource)}, not ${requested.href}`,
  );
}

function checkEndpoint(server: HttpServerConfig, what: string, url: URL | null): void {
  if (
    url && (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname)))
  ) {
    return;
  }
  throw new OAuthCheckError(
    server.name,
    "https_endpoint",
    url
      ? `the ${what} ${
        upstreamWords(url.origin + url.pathname)
      } is plain http on a host that is not loopback`
      : `the ${what} is not a URL`,
  );
}

function parseUrl(text: string | undefined): URL | null {
  if (text === undefined) return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

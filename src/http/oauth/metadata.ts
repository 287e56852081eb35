/**
 * @module Authorization-server metadata (RFC 8414) for engram as its own OAuth authorization
 * server (docs/connectors.md#endpoints), and the paths of its endpoints.
 */
import { oauthJson } from "./oauth_responses.ts";

/** Where the endpoints live, relative to `server.public_url`. */
export const OAUTH_PATHS = {
  metadata: "/.well-known/oauth-authorization-server",
  authorize: "/authorize",
  token: "/token",
  register: "/register",
  consentCss: "/oauth/consent.css",
} as const;

/** The metadata document: `issuer` is `server.public_url`; every endpoint sits under it. */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** The metadata answer (no-store, CORS). */
export function metadataResponse(issuer: string): Response {
  return oauthJson(authorizationServerMetadata(issuer));
}

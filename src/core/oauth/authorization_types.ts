/**
 * @module What engram's OAuth authorization server takes and gives (docs/connectors.md): the
 * contract between the domain service (src/core/oauth/) and the HTTP endpoints (src/http/oauth/).
 */
import type { Tier } from "../types.ts";

/** RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 8707 error codes the endpoints answer with. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable";

/**
 * A refusal the HTTP layer turns into an OAuth error response. `redirectable`: at /authorize, the
 * error may go back to the client's redirect URI (the client and its redirect URI were verified);
 * otherwise it is shown on engram's own page, never redirected (RFC 6749 §4.1.2.1).
 */
export class OAuthError extends Error {
  /** The RFC error code, the HTTP status to answer with, and whether /authorize may redirect it. */
  constructor(
    readonly error: OAuthErrorCode,
    description: string,
    readonly options: { status?: number; redirectable?: boolean } = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

/** How a client authenticates at the token endpoint. */
export type TokenEndpointAuthMethod = "none" | "client_secret_basic" | "client_secret_post";

/** A client as engram knows it: dynamically registered, or described by a metadata document URL. */
export interface OAuthClient {
  /** Opaque id for registered clients; the https URL itself for client-ID metadata documents. */
  client_id: string;
  /** The client's own free-form name: untrusted, shown escaped, never used as an identifier. */
  client_name: string | null;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  /** The grant types it registered (RFC 7591 §2): `authorization_code`, maybe `refresh_token`. */
  grant_types?: ("authorization_code" | "refresh_token")[];
  kind: "registered" | "metadata_document";
  created_at: string;
  last_used_at: string | null;
}

/** A validated /authorize request (authorization code + PKCE S256 only). */
export interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  /** Always "S256": anything else is refused before this exists. */
  code_challenge_method: "S256";
  state: string;
  /** Must be this server's `/mcp` resource URL. */
  resource: string;
  scope: string | null;
}

/** What the person at the consent page may grant: never more than their proof allows. */
export interface ConsentGrant {
  tier: Tier;
  /** Brain ids, or "*". */
  brains: string[] | "*";
  /** The engram token or pairing code that proved it, by id (for audit), never the secret. */
  proofId: string;
  /** Tool names and globs the proof was limited to (a static token's `--tools`); absent: every tool of the tier. */
  tools?: string[];
}

/** A token endpoint success (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A parsed token request: `authorization_code` or `refresh_token`, plus how the client authenticated. */
export type TokenRequest =
  & {
    client_id: string;
    client_secret?: string;
    resource?: string;
    /**
     * How the client authenticated on this request, as the HTTP layer saw it (`client_secret_basic`:
     * an Authorization header; `client_secret_post`: a secret in the body; `none`: neither). When
     * given, it must be the method the client registered (else `invalid_client`).
     */
    auth_method?: TokenEndpointAuthMethod;
  }
  & (
    | {
      grant_type: "authorization_code";
      code: string;
      code_verifier: string;
      redirect_uri: string;
    }
    | { grant_type: "refresh_token"; refresh_token: string; scope?: string }
  );

/** The authorization server as the HTTP endpoints use it. */
export interface AuthorizationServer {
  /** RFC 7591 registration of untrusted metadata; the secret (if any) is returned once. */
  register(
    metadata: unknown,
    options: { remote: string },
  ): Promise<{ client: OAuthClient; client_secret?: string; client_id_issued_at: number }>;
  /** Checks an /authorize request's client, redirect URI, PKCE and resource; resolves the client. */
  checkAuthorization(request: AuthorizationRequest): Promise<OAuthClient>;
  /** What an engram token or unexpired pairing code (the consent page's proof) allows; null if neither. */
  proveIdentity(proof: string): Promise<ConsentGrant | null>;
  /** Issues a single-use, short-lived code for an allowed request. */
  issueCode(request: AuthorizationRequest, grant: ConsentGrant): Promise<string>;
  /** The token endpoint: code exchange or refresh with rotation (a reused refresh token revokes its family). */
  token(request: TokenRequest): Promise<TokenResponse>;
}

/** The `server.oauth` settings the service needs, in milliseconds. */
export interface AuthorizationSettings {
  /** `server.public_url` without a trailing slash: the issuer; the resource is `${issuer}/mcp`. */
  issuer: string;
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  registrationTtlMs: number;
  /** How long an authorization code lives; default 60 s. */
  codeTtlMs?: number;
}

/**
 * Fetches a client-ID metadata document and returns its parsed JSON (untrusted). The HTTP layer
 * supplies one that goes through URL ingest's address policy; it throws when the fetch is refused
 * or fails, with a message naming why.
 */
export type FetchClientMetadata = (url: string) => Promise<unknown>;

/**
 * The scopes engram understands, one per tier: a request names at most the tier it wants (the
 * highest tier scope it names counts; other scopes are ignored). Without one, the grant is the
 * proof's tier. A scope above what the proof allows is `invalid_scope`.
 */
export const TIER_SCOPES: Readonly<Record<Tier, string>> = {
  read: "engram:read",
  write: "engram:write",
  admin: "engram:admin",
};

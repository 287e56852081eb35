/**
 * @module The upstream-credentials port: what engram keeps to reach an upstream MCP server that
 * requires OAuth (docs/upstream.md#oauth-upstreams) — the client registration and the tokens, both
 * sealed by the caller (the port stores opaque text and never sees a secret), what discovery found,
 * where the login stands — and a lease, so that one process at a time refreshes a server's tokens
 * (two processes sharing a rotating refresh token must never both spend it).
 */

/** Where a server's login stands. */
export type UpstreamAuthStatus = "logged_in" | "needs_login" | "refresh_failing";

/** How the kept client registration came about (a pre-registered client lives in the config). */
export type UpstreamClientKind = "dynamic" | "metadata_document";

/** One server's credentials row. */
export interface UpstreamCredentials {
  /** The server name; unique without regard to case. */
  server: string;
  /** A short digest of the secret key that sealed `client` and `tokens`; null when nothing is sealed. */
  key_id: string | null;
  /** The client registration, sealed; null when none is kept. */
  client: string | null;
  client_kind: UpstreamClientKind | null;
  /** The tokens, sealed; null when none are kept. */
  tokens: string | null;
  /** When the access token expires (ISO); null when unknown or there is none. */
  expires_at: string | null;
  /** Whether the sealed tokens hold a refresh token. */
  refreshable: boolean;
  /** The scope granted with the tokens. */
  scope: string | null;
  /** The scope a step-up asked for: the next login asks for it too. */
  required_scope: string | null;
  /** What discovery found (nothing secret): the authorization server, its metadata, the resource. */
  discovery: Record<string, unknown> | null;
  status: UpstreamAuthStatus;
  /** Why it needs a login, or why refreshing fails; never a secret. */
  detail: string | null;
  logged_in_at: string | null;
  refreshed_at: string | null;
  updated_at: string;
}

/** The fields an update may set; those left out keep their value (a new row: none, `needs_login`). */
export type UpstreamCredentialsPatch = Partial<
  Omit<UpstreamCredentials, "server" | "updated_at">
>;

/** Persistence of upstream OAuth credentials. */
export interface UpstreamCredentialStore {
  /** A server's row (name compared without case), or null. */
  findCredentials(server: string): Promise<UpstreamCredentials | null>;
  /** Every row, by server name. */
  listCredentials(): Promise<UpstreamCredentials[]>;
  /**
   * Creates the row or sets the fields `patch` names. With `leaseHolder`, writes only while that
   * holder holds the server's refresh lease (unexpired) and returns false, writing nothing,
   * otherwise: a refresh that outlived its lease must not overwrite its successor's tokens.
   */
  updateCredentials(
    server: string,
    patch: UpstreamCredentialsPatch,
    options?: { leaseHolder?: string },
  ): Promise<boolean>;
  /** Removes the row; false when there was none. */
  removeCredentials(server: string): Promise<boolean>;
  /**
   * Takes the server's refresh lease for `ttlMs` unless another holder has an unexpired one
   * (re-entrant for its holder). False when it is held elsewhere, or the server has no row.
   */
  acquireRefreshLease(server: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `holder` holds it. */
  releaseRefreshLease(server: string, holder: string): Promise<void>;
}

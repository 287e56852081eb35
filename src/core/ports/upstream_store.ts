/**
 * @module The upstream-server port: the operator's state about upstream MCP servers — servers
 * imported (or added from the marketplace) with their definition, and for every server, YAML or
 * imported, whether it is enabled, the operator's consent, and how it last behaved.
 */

/** How an upstream entry came to the database. */
export type UpstreamOrigin = "import" | "marketplace";

/** The operator's consent to connect to a server. */
export type UpstreamConsent = "approved" | "pending" | "denied";

/** What the last attempt to reach a server found. */
export interface UpstreamStatus {
  /** `ok`, `blocked`, `down`, … as the client records it. */
  status: string;
  error: string | null;
  at: string;
}

/** One server's row. */
export interface UpstreamRecord {
  /** Unique without regard to case. */
  name: string;
  /**
   * The server entry (as in `mcp.mcp_servers`) for imported and marketplace servers; null for a
   * server the YAML defines, whose row holds only the operator's state.
   */
  definition: Record<string, unknown> | null;
  origin: UpstreamOrigin | null;
  /** The file an imported server came from. */
  imported_from: string | null;
  /** null: not set here (the definition or the YAML decides). */
  enabled: boolean | null;
  client_consent: UpstreamConsent | null;
  last: UpstreamStatus | null;
  created_at: string;
  updated_at: string;
}

/** A new imported or marketplace server. */
export interface NewUpstream {
  name: string;
  definition: Record<string, unknown>;
  origin: UpstreamOrigin;
  imported_from: string | null;
  enabled: boolean;
  client_consent: UpstreamConsent;
}

/**
 * A review key trusted through the database: the operator's own, added by `engram mcp review` on
 * first use. These count only while `mcp.review_keys` is empty (docs/upstream.md#review-from-import-to-an-exposed-tool).
 */
export interface TrustedReviewKey {
  /** `ed25519:<base64 of the 32 raw bytes>`, as in `mcp.review_keys`. */
  key: string;
  /** Where its private half was written, for the operator's listing. */
  file: string | null;
  /** The OS user who added it. */
  added_by: string;
  added_at: string;
}

/** Persistence of the operator's upstream-server state. */
export interface UpstreamStore {
  /** Every row, by name. */
  listUpstreams(): Promise<UpstreamRecord[]>;
  /** A row by name (compared without case), or null. */
  findUpstream(name: string): Promise<UpstreamRecord | null>;
  /** Adds an imported or marketplace server; `conflict` when a row has the name (without case). */
  addUpstream(server: NewUpstream): Promise<UpstreamRecord>;
  /** Sets enabled and/or consent, creating a state-only row for a YAML server; returns the row. */
  setUpstreamState(
    name: string,
    patch: { enabled?: boolean; client_consent?: UpstreamConsent },
  ): Promise<UpstreamRecord>;
  /** Replaces the stored definition of an imported or marketplace server (`not_found` otherwise). */
  setUpstreamDefinition(name: string, definition: Record<string, unknown>): Promise<UpstreamRecord>;
  /** Records what the last attempt to reach the server found (creating a state-only row). */
  recordUpstreamStatus(name: string, status: UpstreamStatus): Promise<void>;
  /** Removes a row; false when there was none. */
  removeUpstream(name: string): Promise<boolean>;
  /** Trusts a review key (keeping the first row when it is trusted already); returns the row. */
  trustReviewKey(
    key: { key: string; file: string | null; added_by: string },
  ): Promise<TrustedReviewKey>;
  /** Every trusted review key, oldest first. */
  listTrustedReviewKeys(): Promise<TrustedReviewKey[]>;
  /** Stops trusting a review key; false when it was not trusted. */
  removeTrustedReviewKey(key: string): Promise<boolean>;
}

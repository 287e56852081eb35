/**
 * @module The OAuth authorization server's storage port (docs/connectors.md): clients, single-use
 * authorization codes, grants with their rotating refresh tokens, and pairing codes. Every secret
 * is kept as its SHA-256 only; every time comes from the caller's clock.
 */
import type { OAuthClient } from "../oauth/authorization_types.ts";
import type { Tier } from "../types.ts";
import type { StoredToken } from "./token_store.ts";

/** The grant types a client may use. */
export type OAuthGrantType = "authorization_code" | "refresh_token";

/** A client as stored: the secret's hash (confidential clients), and when its document was read. */
export interface StoredOAuthClient extends OAuthClient {
  grant_types: OAuthGrantType[];
  /** SHA-256 of the client secret; null for a public client (`none`). */
  secret_hash: string | null;
  /** When a metadata-document client's document was last fetched; null for registered clients. */
  fetched_at: string | null;
}

/** A client as listed for the operator, with what it holds as of the listing's time. */
export interface ListedOAuthClient extends OAuthClient {
  /** Access tokens neither revoked nor expired. */
  access_tokens: number;
  /** Grants (refresh-token families) neither revoked nor expired. */
  grants: number;
}

/** What a person allowed, as a code, grant or pairing code carries it. */
export interface GrantScope {
  tier: Tier;
  /** Brain ids, or "*". */
  brains: string[] | "*";
  /** Tool names and globs; null: every tool of the tier. */
  tools: string[] | null;
}

/** An authorization code: single use, short-lived, bound to its client, redirect URI and PKCE challenge. */
export interface AuthorizationCodeRecord extends GrantScope {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  /** The S256 challenge the code verifier must match. */
  code_challenge: string;
  resource: string;
  /** The id of the engram token or pairing code that proved who allowed it. */
  proof_id: string;
  created_at: string;
  expires_at: string;
  /** When it was exchanged (or a second exchange was tried); null while unused. */
  used_at: string | null;
  /** The grant it was exchanged for. */
  grant_id: string | null;
}

/** A grant: what one consent gave one client, and the family of refresh tokens rotated from it. */
export interface OAuthGrantRecord extends GrantScope {
  id: string;
  client_id: string;
  resource: string;
  proof_id: string;
  created_at: string;
  /** When its newest refresh token expires: after it, the grant is dead. */
  expires_at: string;
  revoked_at: string | null;
}

/** A refresh token: single use; using it twice revokes its grant. */
export interface RefreshTokenRecord {
  id: string;
  token_hash: string;
  grant_id: string;
  /** The access token issued with it, revoked with the grant. */
  access_token_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A pairing code from `engram tokens pair`: proof of who allows, single use, short-lived. */
export interface PairingCodeRecord {
  id: string;
  code_hash: string;
  tier: Tier;
  brains: string[] | "*";
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** What a purge removed. */
export interface OAuthPurged {
  clients: number;
  codes: number;
  grants: number;
  pairingCodes: number;
  accessTokens: number;
}

/** When a purge removes what. */
export interface PurgeTimes {
  /** The current time: expired refresh tokens, grants, pairing codes and access tokens go. */
  now: string;
  /** Clients last used (or, never used, created) before this go, with everything they hold. */
  clientsUnusedBefore: string;
  /** Codes that expired before this go (kept a while longer, so a late second use is noticed). */
  codesExpiredBefore: string;
}

/** Persistence of the authorization server. */
export interface OAuthStore {
  /** Adds a client; `conflict` if its id is taken. */
  insertClient(client: StoredOAuthClient): Promise<void>;
  /** Adds or refreshes a metadata-document client (keeping its created_at and last_used_at). */
  saveMetadataClient(client: StoredOAuthClient): Promise<void>;
  /** A client by id, or null. */
  findClient(clientId: string): Promise<StoredOAuthClient | null>;
  /** How many clients are stored. */
  countClients(): Promise<number>;
  /** Records a use of the client. */
  touchClient(clientId: string, at: string): Promise<void>;
  /** Every client, oldest first, with its live tokens as of `at`. */
  listClients(at: string): Promise<ListedOAuthClient[]>;
  /** Removes a client with its codes, grants and access tokens; null when there is none. */
  deleteClient(clientId: string): Promise<{ accessTokens: number } | null>;
  /**
   * Removes what is dead (see PurgeTimes). An access token revoked by the operator revokes its
   * grant first, so the revocation outlives the token's row.
   */
  purge(times: PurgeTimes): Promise<OAuthPurged>;

  /** Stores a new code. */
  insertCode(code: AuthorizationCodeRecord): Promise<void>;
  /**
   * Marks the code used; `first` is true only for the one call that did (a code is exchanged
   * once). Null when there is no such code.
   */
  consumeCode(
    codeHash: string,
    at: string,
  ): Promise<{ code: AuthorizationCodeRecord; first: boolean } | null>;

  /**
   * Stores a new grant, its first access token (in the tokens table) and refresh token, and links
   * the code it was exchanged for: all or nothing.
   */
  createGrant(
    input: {
      grant: OAuthGrantRecord;
      access: StoredToken;
      refresh: RefreshTokenRecord;
      codeHash: string;
    },
  ): Promise<void>;
  /** A grant by id, or null. */
  findGrant(grantId: string): Promise<OAuthGrantRecord | null>;
  /**
   * Marks a refresh token used; `first` is true only for the one call that did. `revoked`: its
   * grant is revoked, or one of the grant's access tokens was (by the operator). Null when unknown.
   */
  useRefreshToken(
    tokenHash: string,
    at: string,
  ): Promise<
    | { refresh: RefreshTokenRecord; grant: OAuthGrantRecord; first: boolean; revoked: boolean }
    | null
  >;
  /** Stores a grant's next access and refresh token and moves its expiry: all or nothing. */
  rotateGrant(
    input: { grantId: string; access: StoredToken; refresh: RefreshTokenRecord },
  ): Promise<void>;
  /** Revokes a grant and every access token issued under it; false if it already was (or is unknown). */
  revokeGrant(grantId: string, at: string): Promise<boolean>;

  /** Stores a new pairing code. */
  insertPairingCode(code: PairingCodeRecord): Promise<void>;
  /**
   * Uses a pairing code: the record when it was unused and unexpired at `at` (it is used from now
   * on), else null.
   */
  consumePairingCode(codeHash: string, at: string): Promise<PairingCodeRecord | null>;
}

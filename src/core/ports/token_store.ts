/** @module The bearer-token port: token rows, kept by hash, never the token itself. */
import type { Tier } from "../types.ts";

/** A token as stored and listed; never the token itself nor its hash. */
export interface TokenRecord {
  id: string;
  client_id: string;
  tier: Tier;
  /** Brain ids (not slugs: renaming a brain must not change what a token reaches), or `"*"`. */
  brains: string[] | "*";
  /** Tool names and globs the token's sessions are limited to; null: every tool of its tier. */
  tools: string[] | null;
  /** The first characters of the secret after `egt_`, to tell tokens apart in listings. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** When it stops working; null: never (static tokens). */
  expires_at: string | null;
  /**
   * The resource (an `/mcp` URL) an OAuth access token is bound to: it is accepted only by the
   * server whose resource that is. Null: any (static tokens).
   */
  audience: string | null;
  /** The OAuth client it was issued to (docs/connectors.md); null for a token from `engram tokens create`. */
  oauth_client_id: string | null;
  /**
   * True for an admin token made by `engram tokens create --operator`: the console offers it
   * approving and revoking upstream capabilities (docs/console.md#upstream-servers). Stores leave
   * the key out for every other token (never `false`), so older rows and OAuth-issued tokens read
   * the same.
   */
  operator?: boolean;
}

/** A record as listed: with the issuing OAuth client's own (untrusted) name, when there is one. */
export interface ListedToken extends TokenRecord {
  /** The OAuth client's free-form `client_name`: untrusted text, shown escaped. */
  oauth_client_name: string | null;
}

/** A record with the hash it is looked up by; only the store and the token service see it. */
export interface StoredToken extends TokenRecord {
  token_hash: string;
}

/** Persistence the token service needs. */
export interface TokenStore {
  /** Inserts a new token. */
  insertToken(token: StoredToken): Promise<void>;
  /** Every token, oldest first, revoked and expired ones included. */
  listTokens(): Promise<ListedToken[]>;
  /** The token with this hash, revoked or not, or null. */
  findTokenByHash(hash: string): Promise<StoredToken | null>;
  /** The token with this id, revoked or not, or null. */
  findToken(id: string): Promise<TokenRecord | null>;
  /** Sets revoked_at unless already set; null when no such id, else the row and whether this call revoked it. */
  revokeToken(id: string, at: string): Promise<{ token: TokenRecord; revokedNow: boolean } | null>;
  /** Sets last_used_at to `at` unless it is already later than `options.olderThan`. */
  touchToken(id: string, at: string, options: { olderThan: string }): Promise<void>;
}

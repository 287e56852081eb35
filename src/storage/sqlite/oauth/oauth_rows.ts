/**
 * @module Row ↔ record mapping for the OAuth tables (migration 16), shared by the SQLite and
 * PostgreSQL adapters.
 */
import type {
  AuthorizationCodeRecord,
  OAuthGrantRecord,
  OAuthGrantType,
  PairingCodeRecord,
  RefreshTokenRecord,
  StoredOAuthClient,
} from "../../../core/ports/oauth_store.ts";
import type { TokenEndpointAuthMethod } from "../../../core/oauth/authorization_types.ts";
import type { Tier } from "../../../core/types.ts";

/** An `oauth_clients` row. */
export interface ClientRow {
  client_id: string;
  kind: string;
  client_name: string | null;
  redirect_uris: string;
  token_endpoint_auth_method: string;
  grant_types: string;
  secret_hash: string | null;
  fetched_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** An `oauth_codes` row. */
export interface CodeRow {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  tier: string;
  brains: string;
  tools: string | null;
  proof_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  grant_id: string | null;
}

/** An `oauth_grants` row. */
export interface GrantRow {
  id: string;
  client_id: string;
  resource: string;
  tier: string;
  brains: string;
  tools: string | null;
  proof_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** An `oauth_refresh_tokens` row. */
export type RefreshRow = RefreshTokenRecord;

/** An `oauth_pairing_codes` row. */
export interface PairingRow {
  id: string;
  code_hash: string;
  tier: string;
  brains: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A client row as a record. */
export function toClient(row: ClientRow): StoredOAuthClient {
  return {
    client_id: row.client_id,
    client_name: row.client_name,
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    token_endpoint_auth_method: row.token_endpoint_auth_method as TokenEndpointAuthMethod,
    kind: row.kind as StoredOAuthClient["kind"],
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    grant_types: JSON.parse(row.grant_types) as OAuthGrantType[],
    secret_hash: row.secret_hash,
    fetched_at: row.fetched_at,
  };
}

/** A client record as `oauth_clients` column values, in column order. */
export function clientRow(c: StoredOAuthClient): (string | null)[] {
  return [
    c.client_id,
    c.kind,
    c.client_name,
    JSON.stringify(c.redirect_uris),
    c.token_endpoint_auth_method,
    JSON.stringify(c.grant_types),
    c.secret_hash,
    c.fetched_at,
    c.created_at,
    c.last_used_at,
  ];
}

/** A code row as a record. */
export function toCode(row: CodeRow): AuthorizationCodeRecord {
  return {
    code_hash: row.code_hash,
    client_id: row.client_id,
    redirect_uri: row.redirect_uri,
    code_challenge: row.code_challenge,
    resource: row.resource,
    tier: row.tier as Tier,
    brains: brainsOf(row.brains),
    tools: toolsOf(row.tools),
    proof_id: row.proof_id,
    created_at: row.created_at,
    expires_at: row.expires_at,
    used_at: row.used_at,
    grant_id: row.grant_id,
  };
}

/** A code record's values, in the column order of its INSERT. */
export function codeRow(c: AuthorizationCodeRecord): (string | null)[] {
  return [
    c.code_hash,
    c.client_id,
    c.redirect_uri,
    c.code_challenge,
    c.resource,
    c.tier,
    brainsText(c.brains),
    toolsText(c.tools),
    c.proof_id,
    c.created_at,
    c.expires_at,
    c.used_at,
    c.grant_id,
  ];
}

/** A grant row as a record. */
export function toGrant(row: GrantRow): OAuthGrantRecord {
  return {
    id: row.id,
    client_id: row.client_id,
    resource: row.resource,
    tier: row.tier as Tier,
    brains: brainsOf(row.brains),
    tools: toolsOf(row.tools),
    proof_id: row.proof_id,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  };
}

/** A grant record's values, in the column order of its INSERT. */
export function grantRow(g: OAuthGrantRecord): (string | null)[] {
  return [
    g.id,
    g.client_id,
    g.resource,
    g.tier,
    brainsText(g.brains),
    toolsText(g.tools),
    g.proof_id,
    g.created_at,
    g.expires_at,
    g.revoked_at,
  ];
}

/** A refresh-token row as a record (a fresh object). */
export function toRefresh(row: RefreshRow): RefreshTokenRecord {
  return {
    id: row.id,
    token_hash: row.token_hash,
    grant_id: row.grant_id,
    access_token_id: row.access_token_id,
    created_at: row.created_at,
    expires_at: row.expires_at,
    used_at: row.used_at,
  };
}

/** A refresh-token record's values, in the column order of its INSERT. */
export function refreshRow(r: RefreshTokenRecord): (string | null)[] {
  return [r.id, r.token_hash, r.grant_id, r.access_token_id, r.created_at, r.expires_at, r.used_at];
}

/** A pairing-code row as a record. */
export function toPairing(row: PairingRow): PairingCodeRecord {
  return {
    id: row.id,
    code_hash: row.code_hash,
    tier: row.tier as Tier,
    brains: brainsOf(row.brains),
    created_at: row.created_at,
    expires_at: row.expires_at,
    used_at: row.used_at,
  };
}

/** A pairing-code record's values, in the column order of its INSERT. */
export function pairingRow(p: PairingCodeRecord): (string | null)[] {
  return [p.id, p.code_hash, p.tier, brainsText(p.brains), p.created_at, p.expires_at, p.used_at];
}

function brainsOf(text: string): string[] | "*" {
  return text === "*" ? "*" : JSON.parse(text) as string[];
}

function brainsText(brains: string[] | "*"): string {
  return brains === "*" ? "*" : JSON.stringify(brains);
}

function toolsOf(text: string | null): string[] | null {
  return text === null ? null : JSON.parse(text) as string[];
}

function toolsText(tools: string[] | null): string | null {
  return tools === null ? null : JSON.stringify(tools);
}

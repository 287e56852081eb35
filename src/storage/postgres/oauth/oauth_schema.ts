/**
 * @module The OAuth authorization server's tables (the SQLite schema's version 16, docs/connectors.md):
 * clients, codes, grants, refresh tokens and pairing codes, kept by the SHA-256 of their secrets,
 * and the columns tokens gained (expiry, audience, the client that got them). Part of the
 * PostgreSQL schema's first version: no PostgreSQL database predates them.
 */

/** Text ordered by code point, whatever the database's collation. */
const C = `TEXT COLLATE "C"`;

/** The OAuth tables, run after the core tables. */
export const OAUTH_SCHEMA = `
CREATE TABLE oauth_clients (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  client_id ${C} PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('registered','metadata_document')),
  client_name TEXT,
  redirect_uris TEXT NOT NULL,
  token_endpoint_auth_method TEXT NOT NULL
    CHECK (token_endpoint_auth_method IN ('none','client_secret_basic','client_secret_post')),
  grant_types TEXT NOT NULL,
  secret_hash TEXT,
  fetched_at ${C},
  created_at ${C} NOT NULL,
  last_used_at ${C}
);
ALTER TABLE tokens ADD COLUMN expires_at ${C};
ALTER TABLE tokens ADD COLUMN audience TEXT;
ALTER TABLE tokens ADD COLUMN oauth_client_id ${C} REFERENCES oauth_clients(client_id);
CREATE INDEX tokens_oauth_client ON tokens (oauth_client_id) WHERE oauth_client_id IS NOT NULL;
CREATE TABLE oauth_grants (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id ${C} PRIMARY KEY,
  client_id ${C} NOT NULL REFERENCES oauth_clients(client_id),
  resource TEXT NOT NULL,
  tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
  brains TEXT NOT NULL,
  tools TEXT,
  proof_id TEXT NOT NULL,
  created_at ${C} NOT NULL,
  expires_at ${C} NOT NULL,
  revoked_at ${C}
);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE TABLE oauth_codes (
  code_hash ${C} PRIMARY KEY,
  client_id ${C} NOT NULL REFERENCES oauth_clients(client_id),
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
  brains TEXT NOT NULL,
  tools TEXT,
  proof_id TEXT NOT NULL,
  created_at ${C} NOT NULL,
  expires_at ${C} NOT NULL,
  used_at ${C},
  grant_id ${C} REFERENCES oauth_grants(id)
);
CREATE INDEX oauth_codes_client ON oauth_codes (client_id);
CREATE TABLE oauth_refresh_tokens (
  id ${C} PRIMARY KEY,
  token_hash ${C} NOT NULL UNIQUE,
  grant_id ${C} NOT NULL REFERENCES oauth_grants(id),
  access_token_id ${C} NOT NULL,
  created_at ${C} NOT NULL,
  expires_at ${C} NOT NULL,
  used_at ${C}
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
CREATE TABLE oauth_pairing_codes (
  id ${C} PRIMARY KEY,
  code_hash ${C} NOT NULL UNIQUE,
  tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
  brains TEXT NOT NULL,
  created_at ${C} NOT NULL,
  expires_at ${C} NOT NULL,
  used_at ${C}
);
`;

/**
 * @module The upstream OAuth credentials table (the SQLite schema's version 17,
 * docs/upstream.md#oauth-upstreams): one row per server (unique without regard to ASCII case), the
 * sealed client registration and tokens, what discovery found, where the login stands, and the
 * refresh lease one node holds while it refreshes.
 */

/** Text ordered by code point, whatever the database's collation. */
const C = `TEXT COLLATE "C"`;

/** The table, as one migration. */
export const UPSTREAM_CREDENTIALS_SCHEMA = `
CREATE TABLE upstream_credentials (
  server TEXT NOT NULL,
  key_id TEXT,
  client TEXT,
  client_kind TEXT CHECK (client_kind IN ('dynamic','metadata_document')),
  tokens TEXT,
  expires_at ${C},
  refreshable boolean NOT NULL DEFAULT false,
  scope TEXT,
  required_scope TEXT,
  discovery TEXT,
  status TEXT NOT NULL DEFAULT 'needs_login'
    CHECK (status IN ('logged_in','needs_login','refresh_failing')),
  detail TEXT,
  logged_in_at ${C},
  refreshed_at ${C},
  lease_holder TEXT,
  lease_expires_at ${C},
  updated_at ${C} NOT NULL
);
CREATE UNIQUE INDEX upstream_credentials_server ON upstream_credentials (engram_fold(server));
`;

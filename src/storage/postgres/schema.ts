/**
 * @module The PostgreSQL schema's first version: every table of the SQLite schema at its version
 * 15 (src/storage/sqlite/migrations.ts) but the full-text index and the vectors, whose own
 * migrations follow; the OAuth tables of its versions 16 and 17 are in oauth/
 * (docs/architecture.md#postgresql).
 *
 * Kept as SQLite keeps them, so `engram migrate` copies rows as they are and both backends answer
 * alike: times are ISO-8601 UTC text from engram's own clock (never the server's `now()`), JSON
 * is text, and insertion order is a `seq` identity column where SQLite orders by `rowid`. Text that
 * is compared or ordered uses the "C" collation, so it orders by code point as SQLite does, whatever
 * the database's own collation. SQLite's NOCASE (ASCII letters only) is `engram_fold`.
 */

/** Text ordered by code point, whatever the database's collation. */
const C = `TEXT COLLATE "C"`;

/** Version 1 of the PostgreSQL schema. */
export const CORE_SCHEMA = `
CREATE FUNCTION engram_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') $$;

CREATE TABLE brains (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id ${C} PRIMARY KEY,
  slug ${C} NOT NULL UNIQUE,
  name TEXT NOT NULL,
  visibility TEXT NOT NULL CHECK (visibility IN ('private','tenant','public')),
  created_at ${C} NOT NULL,
  updated_at ${C} NOT NULL
);

CREATE TABLE documents (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id ${C} PRIMARY KEY,
  brain_id ${C} NOT NULL REFERENCES brains(id) ON DELETE CASCADE,
  path ${C} NOT NULL,
  title TEXT NOT NULL,
  source TEXT NOT NULL,
  content_type TEXT NOT NULL,
  byte_size bigint NOT NULL,
  checksum_sha256 TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  commit_sha TEXT NOT NULL,
  version integer NOT NULL,
  created_at ${C} NOT NULL,
  updated_at ${C} NOT NULL,
  deleted_at ${C},
  UNIQUE (brain_id, path)
);
CREATE INDEX documents_brain_updated ON documents (brain_id, updated_at);
CREATE INDEX documents_brain_created ON documents (brain_id, created_at, seq);

CREATE TABLE document_versions (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id ${C} NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  version integer NOT NULL,
  commit_sha TEXT NOT NULL,
  title TEXT NOT NULL,
  path ${C} NOT NULL,
  content TEXT NOT NULL,
  metadata TEXT NOT NULL,
  checksum_sha256 TEXT NOT NULL,
  byte_size bigint NOT NULL,
  created_at ${C} NOT NULL,
  UNIQUE (document_id, version)
);
CREATE INDEX document_versions_created ON document_versions (created_at);

CREATE TABLE chunks (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id ${C} NOT NULL UNIQUE,
  document_id ${C} NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  brain_id ${C} NOT NULL,
  ordinal integer NOT NULL,
  title TEXT NOT NULL,
  headings TEXT NOT NULL,
  body TEXT NOT NULL,
  start_offset integer NOT NULL,
  end_offset integer NOT NULL
);
CREATE INDEX chunks_document ON chunks (document_id, ordinal);
CREATE INDEX chunks_brain ON chunks (brain_id);

CREATE TABLE document_tags (
  document_id ${C} NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  brain_id ${C} NOT NULL,
  tag ${C} NOT NULL,
  PRIMARY KEY (document_id, tag)
);
CREATE INDEX document_tags_brain ON document_tags (brain_id, tag);

CREATE TABLE links (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source_document_id ${C} NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  brain_id ${C} NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('wiki','markdown')),
  target_path ${C},
  target_key ${C},
  text TEXT NOT NULL
);
CREATE INDEX links_source ON links (source_document_id);
CREATE INDEX links_target_path ON links (brain_id, target_path);
CREATE INDEX links_target_key ON links (brain_id, target_key);

CREATE TABLE document_deletions (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id ${C} NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  brain_id ${C} NOT NULL,
  path ${C} NOT NULL,
  title TEXT NOT NULL,
  version integer NOT NULL,
  commit_sha TEXT NOT NULL,
  deleted_at ${C} NOT NULL
);
CREATE INDEX document_deletions_brain ON document_deletions (brain_id, deleted_at);

CREATE TABLE document_provenance (
  document_id ${C} PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  server TEXT NOT NULL,
  uri TEXT NOT NULL,
  mime_type TEXT,
  fetched_at TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  approval TEXT,
  version integer NOT NULL,
  content_sha256 TEXT NOT NULL
);

CREATE TABLE sessions (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id ${C} PRIMARY KEY,
  brain_id ${C} NOT NULL REFERENCES brains(id) ON DELETE CASCADE,
  client_id TEXT,
  actor_id TEXT,
  started_at ${C} NOT NULL,
  ended_at ${C},
  metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX sessions_brain ON sessions (brain_id);

CREATE TABLE messages (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id ${C} NOT NULL UNIQUE,
  session_id ${C} NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
  content TEXT NOT NULL,
  name TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at ${C} NOT NULL
);
CREATE INDEX messages_session ON messages (session_id, seq);

CREATE TABLE jobs (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id ${C} PRIMARY KEY,
  kind TEXT NOT NULL,
  brain_id ${C} NOT NULL REFERENCES brains(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('queued','running','completed','failed')),
  payload TEXT NOT NULL,
  result TEXT,
  error TEXT,
  attempts integer NOT NULL DEFAULT 0,
  lease_until ${C},
  run_after ${C},
  created_at ${C} NOT NULL,
  updated_at ${C} NOT NULL,
  finished_at ${C}
);
CREATE INDEX jobs_runnable ON jobs (status, created_at, seq);

CREATE TABLE locks (
  name ${C} PRIMARY KEY,
  holder TEXT NOT NULL,
  acquired_at ${C} NOT NULL,
  expires_at ${C} NOT NULL
);

CREATE TABLE tokens (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id ${C} PRIMARY KEY,
  client_id TEXT NOT NULL,
  tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
  brains TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at ${C} NOT NULL,
  last_used_at ${C},
  revoked_at ${C},
  tools TEXT
);

CREATE TABLE audit (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at ${C} NOT NULL,
  client_id TEXT NOT NULL,
  transport TEXT NOT NULL,
  session_id TEXT,
  tier TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  brain_id TEXT,
  args_digest TEXT NOT NULL,
  outcome TEXT NOT NULL,
  error_code TEXT,
  latency_ms double precision NOT NULL,
  detail TEXT
);
CREATE INDEX audit_at ON audit (at);

CREATE TABLE audit_drops (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at ${C} NOT NULL,
  rows integer NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX audit_drops_at ON audit_drops (at);

CREATE TABLE upstream_servers (
  name TEXT NOT NULL,
  definition TEXT,
  origin TEXT CHECK (origin IN ('import','marketplace')),
  imported_from TEXT,
  enabled boolean,
  client_consent TEXT CHECK (client_consent IN ('approved','pending','denied')),
  last_status TEXT,
  last_error TEXT,
  last_at ${C},
  created_at ${C} NOT NULL,
  updated_at ${C} NOT NULL
);
CREATE UNIQUE INDEX upstream_servers_name ON upstream_servers (engram_fold(name));

CREATE TABLE capability_pins (
  server TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('tool','prompt','template')),
  name ${C} NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('approved','revoked')),
  pin TEXT NOT NULL,
  definition TEXT NOT NULL,
  identity TEXT NOT NULL,
  expose_tier TEXT CHECK (expose_tier IN ('read','write','admin')),
  approved_by TEXT,
  approved_at ${C} NOT NULL,
  revoked_at ${C},
  expose_as TEXT
);
CREATE UNIQUE INDEX capability_pins_key ON capability_pins (engram_fold(server), kind, name);

CREATE TABLE capability_sightings (
  server TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('tool','prompt','template')),
  name ${C} NOT NULL,
  hash TEXT NOT NULL,
  definition TEXT NOT NULL,
  first_seen_at ${C} NOT NULL,
  last_seen_at ${C} NOT NULL
);
CREATE UNIQUE INDEX capability_sightings_key
  ON capability_sightings (engram_fold(server), kind, name);

CREATE TABLE upstream_traces (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at ${C} NOT NULL,
  server TEXT NOT NULL,
  capability TEXT NOT NULL,
  kind TEXT NOT NULL,
  latency_ms double precision NOT NULL,
  outcome TEXT NOT NULL,
  error_code TEXT,
  bytes_in bigint NOT NULL,
  bytes_out bigint NOT NULL,
  caller TEXT,
  transport TEXT
);
CREATE INDEX upstream_traces_at ON upstream_traces (at);
CREATE INDEX upstream_traces_server ON upstream_traces (server, at);

CREATE TABLE trusted_review_keys (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  key TEXT PRIMARY KEY,
  file TEXT,
  added_by TEXT NOT NULL,
  added_at ${C} NOT NULL
);
`;

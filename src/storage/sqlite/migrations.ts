/** @module Versioned schema migrations, tracked in `PRAGMA user_version`, applied under a write lock. */
import type { DatabaseSync } from "node:sqlite";
import { EngramError } from "../../core/errors.ts";

/** Ordered migrations; index + 1 is the schema version. Never edit a shipped entry: append one. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE brains (
    id TEXT PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    visibility TEXT NOT NULL CHECK (visibility IN ('private','tenant','public')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE documents (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    brain_id TEXT NOT NULL REFERENCES brains(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    content_type TEXT NOT NULL,
    byte_size INTEGER NOT NULL,
    checksum_sha256 TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    commit_sha TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT,
    UNIQUE (brain_id, path)
  );
  CREATE INDEX documents_brain_updated ON documents (brain_id, updated_at);
  CREATE TABLE document_versions (
    rowid INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    commit_sha TEXT NOT NULL,
    title TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT NOT NULL,
    checksum_sha256 TEXT NOT NULL,
    byte_size INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (document_id, version)
  );
  CREATE INDEX document_versions_created ON document_versions (created_at);
  CREATE TABLE chunks (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    brain_id TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    title TEXT NOT NULL,
    headings TEXT NOT NULL,
    body TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL
  );
  CREATE INDEX chunks_document ON chunks (document_id, ordinal);
  -- No prefix indexes: prefix terms are widened through chunks_words (migration 2), so they would
  -- only cost writes (about a quarter of indexing time).
  CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    title, headings, body,
    content = 'chunks', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  -- FTS5's own rank is the weighted BM25, so ORDER BY rank LIMIT n on chunks_fts alone (which FTS5
  -- answers without SQLite sorting every match) ranks like the joined search query.
  INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('rank', 'bm25(5.0, 2.5, 1.0)');
  CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (new.rowid, new.title, new.headings, new.body);
  END;
  CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, headings, body)
      VALUES ('delete', old.rowid, old.title, old.headings, old.body);
  END;
  CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, headings, body)
      VALUES ('delete', old.rowid, old.title, old.headings, old.body);
    INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (new.rowid, new.title, new.headings, new.body);
  END;
  CREATE TABLE document_tags (
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    brain_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (document_id, tag)
  );
  CREATE INDEX document_tags_brain ON document_tags (brain_id, tag);
  CREATE TABLE links (
    rowid INTEGER PRIMARY KEY,
    source_document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    brain_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('wiki','markdown')),
    target_path TEXT,
    target_key TEXT,
    text TEXT NOT NULL
  );
  CREATE INDEX links_source ON links (source_document_id);
  CREATE INDEX links_target_path ON links (brain_id, target_path);
  CREATE INDEX links_target_key ON links (brain_id, target_key);
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    brain_id TEXT NOT NULL REFERENCES brains(id) ON DELETE CASCADE,
    client_id TEXT,
    actor_id TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    metadata TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE messages (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
    content TEXT NOT NULL,
    name TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
  );
  CREATE INDEX messages_session ON messages (session_id, rowid);
  CREATE TABLE audit (
    rowid INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
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
    latency_ms REAL NOT NULL
  );
  CREATE INDEX audit_at ON audit (at);
  `,
  // 2: unstemmed words. chunks_fts is porter-stemmed ("running" is held as "run"), so a prefix such
  // as `runn*` finds nothing there; the word list lets search widen a prefix to the whole words it
  // starts. detail=none: only the vocabulary is read, never positions.
  `
  CREATE VIRTUAL TABLE chunks_words USING fts5 (
    title, headings, body,
    content = 'chunks', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2',
    detail = 'none'
  );
  CREATE VIRTUAL TABLE chunks_words_vocab USING fts5vocab (chunks_words, 'row');
  CREATE TRIGGER chunks_words_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_words (rowid, title, headings, body) VALUES (new.rowid, new.title, new.headings, new.body);
  END;
  CREATE TRIGGER chunks_words_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_words (chunks_words, rowid, title, headings, body)
      VALUES ('delete', old.rowid, old.title, old.headings, old.body);
  END;
  CREATE TRIGGER chunks_words_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_words (chunks_words, rowid, title, headings, body)
      VALUES ('delete', old.rowid, old.title, old.headings, old.body);
    INSERT INTO chunks_words (rowid, title, headings, body) VALUES (new.rowid, new.title, new.headings, new.body);
  END;
  INSERT INTO chunks_words (chunks_words) VALUES ('rebuild');
  `,
  // 3: durable background jobs (large-file ingestion). A running job holds a lease; a job whose
  // process died is picked up again once the lease expires.
  `
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    brain_id TEXT NOT NULL REFERENCES brains(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('queued','running','completed','failed')),
    payload TEXT NOT NULL,
    result TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX jobs_runnable ON jobs (status, created_at);
  `,
  // 4: agent memory. Retried jobs wait out a delay (run_after, NULL = runnable now); named locks
  // with an expiry, so a crashed holder cannot block consolidation forever; chunk vectors keyed by
  // the chunk's rowid, so they go with their chunk when a new version re-chunks the document.
  `
  ALTER TABLE jobs ADD COLUMN run_after TEXT;
  CREATE TABLE locks (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE TABLE chunk_vectors (
    chunk_rowid INTEGER NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE,
    model TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (chunk_rowid, model)
  ) WITHOUT ROWID;
  CREATE INDEX sessions_brain ON sessions (brain_id);
  `,
  // 5: bearer tokens for the HTTP transport. Only the SHA-256 of a token is kept (token_hash, unique
  // so a request is one index lookup); brains is a JSON array of brain ids, or '*' for every brain.
  `
  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
    brains TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  );
  `,
  // 6: audit rows engram could not write (the queue overflowed while the database stayed locked, or
  // the write failed), counted so `engram mcp report` can say the audit log has gaps.
  `
  CREATE TABLE audit_drops (
    rowid INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    rows INTEGER NOT NULL,
    reason TEXT NOT NULL
  );
  CREATE INDEX audit_drops_at ON audit_drops (at);
  `,
  // 7: the operator's state about upstream MCP servers (imported definitions, enabled, consent, last
  // status). Servers the YAML defines keep their definition there; their row holds state only.
  `
  CREATE TABLE upstream_servers (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    definition TEXT,
    origin TEXT CHECK (origin IN ('import','marketplace')),
    imported_from TEXT,
    enabled INTEGER CHECK (enabled IN (0,1)),
    client_consent TEXT CHECK (client_consent IN ('approved','pending','denied')),
    last_status TEXT,
    last_error TEXT,
    last_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  `,
  // 8: approvals pinned to capability definitions (tools, prompts, resource templates of upstream
  // servers), and the definitions last seen live, for pending/changed states, diffs and renames.
  `
  CREATE TABLE capability_pins (
    server TEXT NOT NULL COLLATE NOCASE,
    kind TEXT NOT NULL CHECK (kind IN ('tool','prompt','template')),
    name TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('approved','revoked')),
    pin TEXT NOT NULL,
    definition TEXT NOT NULL,
    identity TEXT NOT NULL,
    expose_tier TEXT CHECK (expose_tier IN ('read','write','admin')),
    approved_by TEXT,
    approved_at TEXT NOT NULL,
    revoked_at TEXT,
    PRIMARY KEY (server, kind, name)
  );
  CREATE TABLE capability_sightings (
    server TEXT NOT NULL COLLATE NOCASE,
    kind TEXT NOT NULL CHECK (kind IN ('tool','prompt','template')),
    name TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    PRIMARY KEY (server, kind, name)
  );
  `,
  // 9: one row per upstream call (server, capability, outcome, latency, bytes, caller), beside the
  // audit log and bounded by a retention setting.
  `
  CREATE TABLE upstream_traces (
    rowid INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    server TEXT NOT NULL,
    capability TEXT NOT NULL,
    kind TEXT NOT NULL,
    latency_ms REAL NOT NULL,
    outcome TEXT NOT NULL,
    error_code TEXT,
    bytes_in INTEGER NOT NULL,
    bytes_out INTEGER NOT NULL,
    caller TEXT,
    transport TEXT
  );
  CREATE INDEX upstream_traces_at ON upstream_traces (at);
  CREATE INDEX upstream_traces_server ON upstream_traces (server, at);
  `,
  // 10: a token may be limited to some tools (a JSON list of names and globs; NULL: every tool).
  `
  ALTER TABLE tokens ADD COLUMN tools TEXT;
  `,
  // 11: every forgetting, kept: documents.deleted_at holds only the latest, and is cleared when a
  // forgotten document is written again, which took its "deleted" entry out of the timeline.
  `
  CREATE TABLE document_deletions (
    rowid INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    brain_id TEXT NOT NULL,
    path TEXT NOT NULL,
    title TEXT NOT NULL,
    version INTEGER NOT NULL,
    commit_sha TEXT NOT NULL,
    deleted_at TEXT NOT NULL
  );
  CREATE INDEX document_deletions_brain ON document_deletions (brain_id, deleted_at);
  INSERT INTO document_deletions (document_id, brain_id, path, title, version, commit_sha, deleted_at)
    SELECT id, brain_id, path, title, version, commit_sha, deleted_at
      FROM documents WHERE deleted_at IS NOT NULL ORDER BY deleted_at;
  `,
  // 12: a compiled document's provenance out of reach of tool calls, which may write any metadata
  // (docs/tools.md#result-records). The keys compiled documents had are copied, and stay in
  // metadata as ordinary keys; version is the first one holding this fetch (the compile's write).
  `
  CREATE TABLE document_provenance (
    document_id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    server TEXT NOT NULL,
    uri TEXT NOT NULL,
    mime_type TEXT,
    fetched_at TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    approval TEXT,
    version INTEGER NOT NULL,
    content_sha256 TEXT NOT NULL
  );
  INSERT INTO document_provenance
    (document_id, server, uri, mime_type, fetched_at, sha256, approval, version, content_sha256)
    SELECT d.id, d.metadata ->> '$.mcp_server', d.metadata ->> '$.mcp_uri',
        CASE json_type(d.metadata, '$.mcp_mime_type') WHEN 'text' THEN d.metadata ->> '$.mcp_mime_type' END,
        d.metadata ->> '$.fetched_at', d.metadata ->> '$.sha256',
        CASE json_type(d.metadata, '$.approval') WHEN 'text' THEN d.metadata ->> '$.approval' END,
        v.version, v.checksum_sha256
      FROM documents d
      JOIN document_versions v ON v.document_id = d.id AND v.version = (
        SELECT MIN(x.version) FROM document_versions x
         WHERE x.document_id = d.id
           AND x.metadata ->> '$.fetched_at' IS d.metadata ->> '$.fetched_at'
           AND x.metadata ->> '$.sha256' IS d.metadata ->> '$.sha256')
     WHERE d.source = 'compile'
       AND json_type(d.metadata, '$.mcp_server') = 'text'
       AND json_type(d.metadata, '$.mcp_uri') = 'text'
       AND json_type(d.metadata, '$.fetched_at') = 'text'
       AND json_type(d.metadata, '$.sha256') = 'text';
  `,
  // 13: operator actions (kind 'operator': an `engram mcp` command that changed a server, by whom)
  // live in the audit log; detail holds the server and what changed, as JSON.
  `
  ALTER TABLE audit ADD COLUMN detail TEXT;
  `,
  // 14: the name an operator chose for an exposed tool (`approvals approve --as`), settling a
  // collision of mcp_<server>_<tool> names; NULL: the usual name.
  `
  ALTER TABLE capability_pins ADD COLUMN expose_as TEXT;
  `,
  // 15: review keys trusted through the database (the operator's own, added by `engram mcp
  // review`); they count only while mcp.review_keys is empty.
  `
  CREATE TABLE trusted_review_keys (
    key TEXT PRIMARY KEY,
    file TEXT,
    added_by TEXT NOT NULL,
    added_at TEXT NOT NULL
  );
  `,
  // 16: engram serve as an OAuth authorization server (docs/connectors.md). Tokens gain an expiry, an
  // audience (the /mcp resource an OAuth access token is bound to) and the OAuth client that got
  // them. Clients (registered, or described by a metadata document), authorization codes, grants
  // (a refresh-token family: revoking one ends all its tokens), refresh tokens and pairing codes are
  // kept by the SHA-256 of their secrets, never the secrets.
  `
  CREATE TABLE oauth_clients (
    client_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('registered','metadata_document')),
    client_name TEXT,
    redirect_uris TEXT NOT NULL,
    token_endpoint_auth_method TEXT NOT NULL
      CHECK (token_endpoint_auth_method IN ('none','client_secret_basic','client_secret_post')),
    grant_types TEXT NOT NULL,
    secret_hash TEXT,
    fetched_at TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  );
  ALTER TABLE tokens ADD COLUMN expires_at TEXT;
  ALTER TABLE tokens ADD COLUMN audience TEXT;
  ALTER TABLE tokens ADD COLUMN oauth_client_id TEXT REFERENCES oauth_clients(client_id);
  CREATE INDEX tokens_oauth_client ON tokens (oauth_client_id) WHERE oauth_client_id IS NOT NULL;
  CREATE TABLE oauth_grants (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
    resource TEXT NOT NULL,
    tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
    brains TEXT NOT NULL,
    tools TEXT,
    proof_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
  CREATE TABLE oauth_codes (
    code_hash TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    resource TEXT NOT NULL,
    tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
    brains TEXT NOT NULL,
    tools TEXT,
    proof_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    grant_id TEXT REFERENCES oauth_grants(id)
  );
  CREATE INDEX oauth_codes_client ON oauth_codes (client_id);
  CREATE TABLE oauth_refresh_tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
    access_token_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
  CREATE TABLE oauth_pairing_codes (
    id TEXT PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    tier TEXT NOT NULL CHECK (tier IN ('read','write','admin')),
    brains TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  `,
  // 17: what engram keeps to reach upstream MCP servers that require OAuth
  // (docs/upstream.md#oauth-upstreams): one row per server, the client registration and tokens
  // sealed (AES-256-GCM) by the caller, what discovery found, where the login stands, and the
  // lease one process holds while it refreshes the tokens.
  `
  CREATE TABLE upstream_credentials (
    server TEXT PRIMARY KEY COLLATE NOCASE,
    key_id TEXT,
    client TEXT,
    client_kind TEXT CHECK (client_kind IN ('dynamic','metadata_document')),
    tokens TEXT,
    expires_at TEXT,
    refreshable INTEGER NOT NULL DEFAULT 0,
    scope TEXT,
    required_scope TEXT,
    discovery TEXT,
    status TEXT NOT NULL DEFAULT 'needs_login'
      CHECK (status IN ('logged_in','needs_login','refresh_failing')),
    detail TEXT,
    logged_in_at TEXT,
    refreshed_at TEXT,
    lease_holder TEXT,
    lease_expires_at TEXT,
    updated_at TEXT NOT NULL
  );
  `,
  // 18: the operator flag (docs/console.md#upstream-servers): an admin token made by `engram
  // tokens create --operator` may approve and revoke upstream capabilities in the web console.
  // Every existing token is not one.
  `
  ALTER TABLE tokens ADD COLUMN operator INTEGER NOT NULL DEFAULT 0 CHECK (operator IN (0, 1));
  `,
];

/** Brings the schema to the newest version; safe when several processes start at once. */
export function migrate(db: DatabaseSync): void {
  const current = () =>
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (current() === MIGRATIONS.length) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    const from = current();
    if (from > MIGRATIONS.length) {
      throw new EngramError(
        "internal",
        `database schema version ${from} is newer than this engram (${MIGRATIONS.length}); upgrade engram`,
      );
    }
    for (let v = from; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`);
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

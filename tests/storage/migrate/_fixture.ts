/**
 * @module A SQLite database with rows in every table engram keeps, for `engram migrate`'s tests:
 * written with SQL so that every column holds a value (and some hold NULL), with gaps in the row
 * ids, flags both ways, Float32 vectors, text that needs care (quotes, accents, emoji, a newline)
 * and enough rows that several batches per table are copied.
 */
import { openDatabase } from "../../../src/storage/sqlite/database.ts";

/** Text a copy must keep byte for byte. */
export const AWKWARD = `it's "quoted" — café ñ 😀 \\ back\nslash`;

/** Creates `file` (migrated) and fills every table; returns how many chunks it holds. */
export function fillEveryTable(file: string, options: { documents?: number } = {}): number {
  const db = openDatabase(file);
  const n = options.documents ?? 12;
  const t = (i: number) => `2026-01-0${1 + (i % 9)}T10:00:${String(i % 60).padStart(2, "0")}.000Z`;
  const run = (sql: string, ...values: (string | number | null | Uint8Array)[]) =>
    db.prepare(sql).run(...values);
  let chunks = 0;
  db.exec("BEGIN");
  try {
    // A brain made and deleted first: the row ids of the ones kept start past a gap.
    run(
      `INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
         VALUES ('b-gone', 'gone', 'Gone', 'private', ?, ?)`,
      t(0),
      t(0),
    );
    run(`DELETE FROM brains WHERE id = 'b-gone'`);
    run(
      `INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
         VALUES ('b-default', 'default', 'Default', 'private', ?, ?)`,
      t(1),
      t(1),
    );
    run(
      `INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
         VALUES ('b-work', 'work', ?, 'tenant', ?, ?)`,
      AWKWARD,
      t(2),
      t(3),
    );
    for (let i = 0; i < n; i++) {
      const brain = i % 3 === 0 ? "b-work" : "b-default";
      const id = `doc-${i}`;
      const path = `/notes/${i % 2 ? "é" : "a"}/note-${i}.md`;
      const deleted = i === n - 1 ? t(i + 5) : null;
      run(
        `INSERT INTO documents (rowid, id, brain_id, path, title, source, content_type, byte_size,
           checksum_sha256, metadata, commit_sha, version, created_at, updated_at, deleted_at)
         VALUES (?, ?, ?, ?, ?, 'remember', 'text/markdown', ?, ?, ?, ?, 2, ?, ?, ?)`,
        10 * (i + 1),
        id,
        brain,
        path,
        `Note ${i} ${AWKWARD}`,
        1000 + i,
        `sha-${i}`,
        JSON.stringify({ b: i, a: [1, "x"], note: AWKWARD }),
        `commit-${i}`,
        t(i),
        t(i + 1),
        deleted,
      );
      for (const v of [1, 2]) {
        run(
          `INSERT INTO document_versions (document_id, version, commit_sha, title, path, content,
             metadata, checksum_sha256, byte_size, created_at) VALUES (?, ?, ?, ?, ?, ?, '{}', ?, ?, ?)`,
          id,
          v,
          `commit-${i}-${v}`,
          `Note ${i}`,
          path,
          `# Note ${i}\n\nThe importer ships on Friday ${i}. ${AWKWARD}`,
          `sha-${i}-${v}`,
          50 + v,
          t(i + v),
        );
      }
      for (let c = 0; c < 3; c++) {
        chunks++;
        const rowid = 100 * (i + 1) + 7 * c;
        run(
          `INSERT INTO chunks (rowid, id, document_id, brain_id, ordinal, title, headings, body,
             start_offset, end_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          rowid,
          `${id}-c${c}`,
          id,
          brain,
          c,
          `Note ${i}`,
          c ? `Section ${c}` : "",
          `The importer ships on Friday ${i}, chunk ${c}: zebra${i} quokka café ${AWKWARD}`,
          c * 100,
          c * 100 + 99,
        );
        if (c < 2) {
          const floats = Float32Array.from([0.1 * i, -1.5, 1e-30, c, Math.PI]);
          const blob = new Uint8Array(floats.buffer);
          run(
            `INSERT INTO chunk_vectors (chunk_rowid, model, dims, vector) VALUES (?, ?, 5, ?)`,
            rowid,
            "model-a",
            blob,
          );
          if (c === 0) {
            run(
              `INSERT INTO chunk_vectors (chunk_rowid, model, dims, vector) VALUES (?, ?, 5, ?)`,
              rowid,
              "Model-B",
              blob,
            );
          }
        }
      }
      for (const tag of ["zeta", "Alpha", "beta-é"]) {
        run(
          `INSERT INTO document_tags (document_id, brain_id, tag) VALUES (?, ?, ?)`,
          id,
          brain,
          tag,
        );
      }
      run(
        `INSERT INTO links (source_document_id, brain_id, kind, target_path, target_key, text)
         VALUES (?, ?, ?, ?, ?, ?)`,
        id,
        brain,
        i % 2 ? "wiki" : "markdown",
        i % 2 ? null : `/notes/a/note-${i + 1}.md`,
        i % 2 ? `note ${i + 1}` : null,
        `link ${AWKWARD}`,
      );
    }
    const last = `doc-${n - 1}`;
    run(
      `INSERT INTO document_deletions (document_id, brain_id, path, title, version, commit_sha, deleted_at)
       VALUES (?, 'b-default', '/notes/gone.md', 'Gone', 2, 'c', ?)`,
      last,
      t(7),
    );
    run(
      `INSERT INTO document_provenance (document_id, server, uri, mime_type, fetched_at, sha256,
         approval, version, content_sha256) VALUES ('doc-1', 'files', 'file:///a', 'text/plain', ?, 'h', NULL, 1, 'ch')`,
      t(3),
    );
    run(
      `INSERT INTO document_provenance (document_id, server, uri, mime_type, fetched_at, sha256,
         approval, version, content_sha256) VALUES ('doc-2', 'Files', 'file:///b', NULL, ?, 'h', 'pin', 2, 'ch')`,
      t(4),
    );
    for (let s = 0; s < 3; s++) {
      run(
        `INSERT INTO sessions (id, brain_id, client_id, actor_id, started_at, ended_at, metadata)
         VALUES (?, 'b-default', ?, ?, ?, ?, '{"k":1}')`,
        `sess-${s}`,
        s ? "claude" : null,
        s ? `actor-${s}` : null,
        t(s),
        s === 2 ? t(8) : null,
      );
      for (let m = 0; m < 4; m++) {
        run(
          `INSERT INTO messages (id, session_id, role, content, name, metadata, created_at)
           VALUES (?, ?, ?, ?, ?, '{}', ?)`,
          `msg-${s}-${m}`,
          `sess-${s}`,
          ["system", "user", "assistant", "tool"][m],
          `message ${m} ${AWKWARD}`,
          m === 3 ? "memory_search" : null,
          t(m),
        );
      }
    }
    for (const [i, status] of ["queued", "running", "completed", "failed"].entries()) {
      run(
        `INSERT INTO jobs (id, kind, brain_id, status, payload, result, error, attempts, lease_until,
           created_at, updated_at, finished_at, run_after) VALUES (?, 'ingest', 'b-default', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        `job-${i}`,
        status,
        `{"path":"/x/${i}"}`,
        status === "completed" ? '{"ok":true}' : null,
        status === "failed" ? "boom" : null,
        i,
        status === "running" ? t(9) : null,
        t(i),
        t(i + 1),
        i >= 2 ? t(i + 2) : null,
        i === 0 ? t(5) : null,
      );
    }
    run(
      `INSERT INTO locks (name, holder, acquired_at, expires_at) VALUES ('consolidate:b-default', 'node-a', ?, ?)`,
      t(1),
      t(2),
    );
    run(
      `INSERT INTO locks (name, holder, acquired_at, expires_at) VALUES ('Consolidate:b-work', 'node-b', ?, ?)`,
      t(1),
      t(2),
    );
    run(
      `INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris, token_endpoint_auth_method,
         grant_types, secret_hash, fetched_at, created_at, last_used_at)
       VALUES ('client-1', 'registered', ?, '["http://127.0.0.1/cb"]', 'none', '["authorization_code"]', NULL, NULL, ?, ?)`,
      AWKWARD,
      t(1),
      t(2),
    );
    run(
      `INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris, token_endpoint_auth_method,
         grant_types, secret_hash, fetched_at, created_at, last_used_at)
       VALUES ('https://app.example/client.json', 'metadata_document', 'App', '[]', 'client_secret_basic', '[]', 'sh', ?, ?, NULL)`,
      t(3),
      t(3),
    );
    for (let k = 0; k < 5; k++) {
      run(
        `INSERT INTO tokens (id, client_id, tier, brains, token_hash, prefix, created_at, last_used_at,
           revoked_at, tools, expires_at, audience, oauth_client_id) VALUES (?, ?, ?, ?, ?, 'eng_', ?, ?, ?, ?, ?, ?, ?)`,
        `tok-${k}`,
        `client-${k}`,
        ["read", "write", "admin"][k % 3],
        k ? '["b-default"]' : "*",
        `hash-${k}`,
        t(k),
        k % 2 ? t(k + 1) : null,
        k === 4 ? t(6) : null,
        k === 1 ? '["memory_*"]' : null,
        k >= 3 ? t(9) : null,
        k >= 3 ? "http://127.0.0.1/mcp" : null,
        k >= 3 ? "client-1" : null,
      );
    }
    run(
      `INSERT INTO oauth_grants (id, client_id, resource, tier, brains, tools, proof_id, created_at, expires_at, revoked_at)
       VALUES ('grant-1', 'client-1', 'http://127.0.0.1/mcp', 'write', '*', NULL, 'proof', ?, ?, NULL)`,
      t(1),
      t(9),
    );
    run(
      `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, resource, tier, brains,
         tools, proof_id, created_at, expires_at, used_at, grant_id)
       VALUES ('code-1', 'client-1', 'http://127.0.0.1/cb', 'chal', 'http://127.0.0.1/mcp', 'read', '*', '["a"]', 'p', ?, ?, ?, 'grant-1')`,
      t(1),
      t(2),
      t(1),
    );
    run(
      `INSERT INTO oauth_refresh_tokens (id, token_hash, grant_id, access_token_id, created_at, expires_at, used_at)
       VALUES ('rt-1', 'rth-1', 'grant-1', 'tok-3', ?, ?, NULL)`,
      t(1),
      t(9),
    );
    run(
      `INSERT INTO oauth_pairing_codes (id, code_hash, tier, brains, created_at, expires_at, used_at)
       VALUES ('pair-1', 'pch-1', 'read', '*', ?, ?, ?)`,
      t(1),
      t(2),
      t(2),
    );
    for (let a = 0; a < 9; a++) {
      run(
        `INSERT INTO audit (at, client_id, transport, session_id, tier, kind, name, brain_id, args_digest,
           outcome, error_code, latency_ms, detail) VALUES (?, 'claude', 'http', ?, 'write', ?, 'memory_search', ?, 'dg', ?, ?, ?, ?)`,
        t(a),
        a % 2 ? "sess-1" : null,
        a === 8 ? "operator" : "tool",
        a % 3 ? "b-default" : null,
        a === 4 ? "error" : "ok",
        a === 4 ? "not_found" : null,
        [0.1, 3, 12.345678901234567][a % 3],
        a === 8 ? JSON.stringify({ server: "files", changes: [AWKWARD] }) : null,
      );
    }
    run(`INSERT INTO audit_drops (at, rows, reason) VALUES (?, 3, 'database locked')`, t(2));
    run(
      `INSERT INTO upstream_servers (name, definition, origin, imported_from, enabled, client_consent,
         last_status, last_error, last_at, created_at, updated_at)
       VALUES ('Files', '{"command":"npx"}', 'import', '/home/u/.cursor/mcp.json', 1, 'approved', 'ok', NULL, ?, ?, ?)`,
      t(1),
      t(1),
      t(2),
    );
    run(
      `INSERT INTO upstream_servers (name, definition, origin, imported_from, enabled, client_consent,
         last_status, last_error, last_at, created_at, updated_at)
       VALUES ('github', NULL, NULL, NULL, 0, NULL, 'error', ?, NULL, ?, ?)`,
      AWKWARD,
      t(1),
      t(2),
    );
    run(
      `INSERT INTO upstream_servers (name, created_at, updated_at) VALUES ('zeta', ?, ?)`,
      t(1),
      t(1),
    );
    for (
      const [i, [server, kind, name]] of [
        ["Files", "tool", "read_file"],
        ["Files", "tool", "Write_file"],
        ["Files", "prompt", "summarise"],
        ["github", "template", "repo://{owner}"],
      ].entries()
    ) {
      run(
        `INSERT INTO capability_pins (server, kind, name, state, pin, definition, identity, expose_tier,
           approved_by, approved_at, revoked_at, expose_as) VALUES (?, ?, ?, ?, 'pin', '{}', 'id', ?, ?, ?, ?, ?)`,
        server,
        kind,
        name,
        i === 3 ? "revoked" : "approved",
        i ? "read" : null,
        i ? "alice" : null,
        t(i),
        i === 3 ? t(5) : null,
        i === 1 ? "fs_write" : null,
      );
      run(
        `INSERT INTO capability_sightings (server, kind, name, hash, definition, first_seen_at, last_seen_at)
         VALUES (?, ?, ?, 'h', '{}', ?, ?)`,
        server,
        kind,
        name,
        t(i),
        t(i + 1),
      );
    }
    for (let x = 0; x < 6; x++) {
      run(
        `INSERT INTO upstream_traces (at, server, capability, kind, latency_ms, outcome, error_code,
           bytes_in, bytes_out, caller, transport) VALUES (?, 'Files', 'read_file', 'tool', ?, ?, ?, ?, ?, ?, ?)`,
        t(x),
        1.25 * x,
        x === 2 ? "error" : "ok",
        x === 2 ? "timeout" : null,
        10 * x,
        2 ** 40 + x,
        x % 2 ? "claude" : null,
        x % 2 ? "http" : null,
      );
    }
    run(
      `INSERT INTO trusted_review_keys (key, file, added_by, added_at) VALUES ('ed25519:abc', NULL, 'alice', ?)`,
      t(1),
    );
    run(
      `INSERT INTO upstream_credentials (server, key_id, client, client_kind, tokens, expires_at, refreshable,
         scope, required_scope, discovery, status, detail, logged_in_at, refreshed_at, lease_holder,
         lease_expires_at, updated_at)
       VALUES ('Remote', 'k1', 'sealed-client', 'dynamic', 'sealed-tokens', ?, 1, 'read', 'read write', '{}',
         'logged_in', NULL, ?, ?, 'node-a', ?, ?)`,
      t(9),
      t(1),
      t(2),
      t(3),
      t(2),
    );
    run(
      `INSERT INTO upstream_credentials (server, refreshable, status, detail, updated_at)
       VALUES ('other', 0, 'needs_login', ?, ?)`,
      AWKWARD,
      t(1),
    );
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  } finally {
    db.close();
  }
  return chunks;
}

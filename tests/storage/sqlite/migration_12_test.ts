/**
 * @module
 * Migration 12: a schema-11 database's compiled documents get their provenance out of metadata,
 * into `document_provenance`, recorded with the version their last compile wrote; documents of
 * other sources keep look-alike keys as plain metadata, and no metadata is changed.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "../../../src/storage/sqlite/migrations.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { tempDir } from "../../helpers.ts";

const PIN = `sha256:${"9".repeat(64)}`;

/** Compile metadata as engram wrote it before migration 12. */
function compiled(fetchedAt: string, sha: string, extra: Record<string, unknown> = {}) {
  return {
    mcp_server: "docs",
    mcp_uri: "fixture://text/hello",
    mcp_mime_type: "text/plain",
    fetched_at: fetchedAt,
    sha256: sha,
    approval: PIN,
    ...extra,
  };
}

/** One document with its versions, each `[content checksum, metadata]`. */
function insert(
  db: DatabaseSync,
  doc: { id: string; source: string; versions: [string, Record<string, unknown>][] },
): void {
  const [checksum, meta] = doc.versions.at(-1)!;
  db.prepare(`INSERT INTO documents (id, brain_id, path, title, source, content_type, byte_size,
      checksum_sha256, metadata, commit_sha, version, created_at, updated_at)
    VALUES (?, 'brn_1', ?, ?, ?, 'text/plain', 1, ?, ?, 'c', ?, '2026-01-02T00:00:00Z',
      '2026-01-02T00:00:00Z')`).run(
    doc.id,
    `/${doc.id}.md`,
    doc.id,
    doc.source,
    checksum,
    JSON.stringify(meta),
    doc.versions.length,
  );
  doc.versions.forEach(([sum, m], i) =>
    db.prepare(`INSERT INTO document_versions (document_id, version, commit_sha, title, path,
        content, metadata, checksum_sha256, byte_size, created_at)
      VALUES (?, ?, 'c', ?, ?, 'x', ?, ?, 1, '2026-01-02T00:00:00Z')`).run(
      doc.id,
      i + 1,
      doc.id,
      `/${doc.id}.md`,
      JSON.stringify(m),
      sum,
    )
  );
}

Deno.test("migration 12: compiled documents' provenance moves out of metadata; look-alike keys elsewhere do not", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const old = new DatabaseSync(file);
  for (const sql of MIGRATIONS.slice(0, 11)) old.exec(sql);
  old.exec("PRAGMA user_version = 11");
  old.exec(`INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
    VALUES ('brn_1', 'default', 'Default', 'private', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`);
  const a = "a".repeat(64), b = "b".repeat(64), c = "c".repeat(64);
  const F1 = "2026-01-02T00:00:00.000Z", F2 = "2026-01-03T00:00:00.000Z";
  // Compiled, then edited by an agent (metadata carried over by the merge, content changed).
  insert(old, {
    id: "doc_edited",
    source: "compile",
    versions: [[a, compiled(F1, a)], [b, compiled(F1, a, { note: "mine" })]],
  });
  // Compiled twice: the second fetch wrote version 2.
  insert(old, {
    id: "doc_twice",
    source: "compile",
    versions: [[a, compiled(F1, a)], [c, compiled(F2, c)]],
  });
  // The user's own note with keys that look like provenance: not provenance.
  insert(old, { id: "doc_forged", source: "ingest", versions: [[a, compiled(F1, a)]] });
  // Marked compiled but without a URI: nothing to record.
  const partial = compiled(F1, a) as Record<string, unknown>;
  delete partial.mcp_uri;
  insert(old, { id: "doc_partial", source: "compile", versions: [[a, partial]] });
  old.close();

  const storage = openSqliteStorage(file);
  try {
    const version = storage.connection.db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    assert.equal(version.user_version, MIGRATIONS.length);
    const ids = ["doc_edited", "doc_twice", "doc_forged", "doc_partial"];
    const origins = await storage.documents.origins("brn_1", ids);
    const base = {
      server: "docs",
      uri: "fixture://text/hello",
      mime_type: "text/plain",
      approval: PIN,
    };
    assert.deepEqual(origins.get("doc_edited"), {
      source: "compile",
      checksum_sha256: b,
      provenance: { ...base, fetched_at: F1, sha256: a, version: 1, content_sha256: a },
    });
    assert.deepEqual(origins.get("doc_twice")?.provenance, {
      ...base,
      fetched_at: F2,
      sha256: c,
      version: 2,
      content_sha256: c,
    });
    assert.equal(origins.get("doc_forged")?.provenance, null);
    assert.equal(origins.get("doc_partial")?.provenance, null);
    // Metadata is left as it was: the keys stay, as ordinary metadata.
    const edited = await storage.documents.findDocument("brn_1", { id: "doc_edited" });
    assert.deepEqual(edited?.metadata, compiled(F1, a, { note: "mine" }));
  } finally {
    storage.close();
  }
});

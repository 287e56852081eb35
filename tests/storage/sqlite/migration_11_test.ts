/** Migration 11: a schema-10 database keeps the forgettings it had, in the timeline. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { MIGRATIONS } from "../../../src/storage/sqlite/migrations.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { tempDir } from "../../helpers.ts";

Deno.test("migration 11: a schema-10 database's forgotten documents stay in the timeline", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const old = new DatabaseSync(file);
  for (const sql of MIGRATIONS.slice(0, 10)) old.exec(sql);
  old.exec("PRAGMA user_version = 10");
  old.exec(`INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
    VALUES ('brn_1', 'default', 'Default', 'private', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`);
  for (const [id, deleted] of [["doc_gone", "'2026-01-03T00:00:00Z'"], ["doc_live", "NULL"]]) {
    old.exec(`INSERT INTO documents (id, brain_id, path, title, source, content_type, byte_size,
        checksum_sha256, commit_sha, version, created_at, updated_at, deleted_at)
      VALUES ('${id}', 'brn_1', '/${id}.md', '${id}', 'ingest', 'text/markdown', 1, 'x', 'c', 1,
        '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', ${deleted})`);
    old.exec(`INSERT INTO document_versions (document_id, version, commit_sha, title, path, content,
        metadata, checksum_sha256, byte_size, created_at)
      VALUES ('${id}', 1, 'c', '${id}', '/${id}.md', 'x', '{}', 'x', 1, '2026-01-02T00:00:00Z')`);
  }
  old.close();

  const storage = openSqliteStorage(file);
  try {
    const version = storage.connection.db.prepare("PRAGMA user_version").get() as {
      user_version: number;
    };
    assert.equal(version.user_version, MIGRATIONS.length);
    const timeline = await storage.documents.timeline("brn_1", { limit: 10 });
    assert.deepEqual(timeline.map((e) => [e.document_id, e.action, e.at]), [
      ["doc_gone", "deleted", "2026-01-03T00:00:00Z"],
      ["doc_live", "created", "2026-01-02T00:00:00Z"],
      ["doc_gone", "created", "2026-01-02T00:00:00Z"],
    ]);
  } finally {
    storage.close();
  }
});

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../../../src/storage/sqlite/database.ts";
import { MIGRATIONS } from "../../../src/storage/sqlite/migrations.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { tempDir } from "../../helpers.ts";

function userVersion(db: DatabaseSync): number {
  return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function names(db: DatabaseSync, type: "table" | "index"): string[] {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = ?").all(type).map((r) =>
    r.name as string
  );
}

Deno.test("migration 4: a fresh database reaches the newest schema, with locks, vectors and run_after", async () => {
  await using dir = await tempDir();
  const db = openDatabase(`${dir.path}/engram.db`);
  try {
    assert.ok(MIGRATIONS.length >= 4);
    assert.equal(userVersion(db), MIGRATIONS.length);
    for (const t of ["locks", "chunk_vectors", "sessions", "messages"]) {
      assert.ok(names(db, "table").includes(t), `table ${t}`);
    }
    assert.ok(names(db, "index").includes("sessions_brain"));
    const jobColumns = db.prepare("PRAGMA table_info(jobs)").all().map((r) => r.name);
    assert.ok(jobColumns.includes("run_after"), jobColumns.join(", "));
    const fks = db.prepare("PRAGMA foreign_key_list(chunk_vectors)").all();
    assert.deepEqual(
      fks.map((f) => [f.table, f.from, f.to, f.on_delete]),
      [["chunks", "chunk_rowid", "rowid", "CASCADE"]],
    );
  } finally {
    db.close();
  }
});

Deno.test("migration 4: a schema-3 database with a queued job upgrades and keeps the job runnable", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const old = new DatabaseSync(file);
  for (const sql of MIGRATIONS.slice(0, 3)) old.exec(sql);
  old.exec("PRAGMA user_version = 3");
  old.exec(
    `INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
     VALUES ('brn_1', 'default', 'Default', 'private', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
     INSERT INTO jobs (id, kind, brain_id, status, payload, created_at, updated_at)
     VALUES ('job_old', 'ingest', 'brn_1', 'queued', '{"n":1}', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
     INSERT INTO sessions (id, brain_id, started_at) VALUES ('ses_old', 'brn_1', '2025-01-01T00:00:00Z');`,
  );
  old.close();

  const storage = openSqliteStorage(file);
  try {
    assert.equal(userVersion(storage.connection.db), MIGRATIONS.length);
    assert.equal(await storage.jobs.nextDelayedJobAt(), null, "an old job has no delay");
    const job = await storage.jobs.claimJob(60_000);
    assert.equal(job?.id, "job_old");
    assert.deepEqual(job.payload, { n: 1 });
    assert.deepEqual(await storage.sessions.getSession("ses_old"), {
      id: "ses_old",
      brain_id: "brn_1",
      client_id: null,
      actor_id: null,
      started_at: "2025-01-01T00:00:00Z",
      ended_at: null,
      metadata: {},
    });
    assert.equal(await storage.locks.acquireLock("l", "me", 1_000), null);
  } finally {
    storage.close();
  }
});

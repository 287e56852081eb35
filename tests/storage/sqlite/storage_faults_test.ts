/**
 * @module A corrupt database file and a full disk, on real SQLite files
 * (docs/operations.md#corrupt-or-full-database): the codes they raise, what remote clients and the
 * operator are told, /readyz's hook, and that a full disk loses nothing and leaves nothing half
 * written. The full disk is SQLite's `max_page_count` (a tmpfs needs privileges; `ulimit -f`
 * kills the process).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { EngramError } from "../../../src/core/errors.ts";
import type { ListArgs } from "../../../src/core/schemas.ts";
import { concealInternal } from "../../../src/core/internal_errors.ts";
import { type Logger, silentLogger } from "../../../src/core/logger.ts";
import { toolErrorResult } from "../../../src/mcp/server/tool_error.ts";
import { translateSqliteError } from "../../../src/storage/sqlite/database.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";
import { databaseWithNotes, overwriteDocumentPages } from "./_corrupt.ts";

const LIST: ListArgs = { prefix: "/", limit: 50 };

/** A logger that keeps what was logged at error level. */
function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return {
    ...silentLogger,
    errors,
    error: (msg: string, fields?: Record<string, unknown>) =>
      void errors.push(`${msg} ${JSON.stringify(fields ?? {})}`),
  };
}

/** Runs `fn`, which must reject with an EngramError, and returns that error. */
async function rejection(fn: () => Promise<unknown>): Promise<EngramError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof EngramError, `not an EngramError: ${err}`);
    return err;
  }
  throw new Error("expected a rejection");
}

Deno.test("corrupt: reading damaged pages is storage_corrupt naming the file and the fix, and ready() turns false", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  using s = await openService(dir.path);
  assert.equal(await s.storage.health.ready(), true, "nothing has read a damaged page yet");
  const err = await rejection(() => s.service.list(ADMIN, LIST));
  assert.equal(err.code, "storage_corrupt");
  assert.equal(err.retryable, false);
  assert.ok(err.message.includes(file), err.message);
  assert.match(err.message, /malformed/);
  assert.match(err.message, /engram restore FILE --force/);
  assert.match(err.message, /\.recover/);
  assert.equal(
    await s.storage.health.ready(),
    false,
    "/readyz must turn 503 once corruption is seen",
  );
});

Deno.test("corrupt: a remote client gets storage_corrupt without the file; the operator log gets the file", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  using s = await openService(dir.path);
  const raw = await rejection(() => s.service.list(ADMIN, LIST));
  const log = recordingLogger();
  const result = toolErrorResult(concealInternal(raw, { logger: log, what: "tool memory_list" }));
  const text = (result.content[0] as { text: string }).text;
  assert.match(text, /^storage_corrupt: the database is corrupt/);
  assert.doesNotMatch(text, new RegExp(dir.path), "remote clients never see local paths");
  assert.match(text, /engram restore/);
  assert.deepEqual(result._meta?.["engram/error"], { code: "storage_corrupt", retryable: false });
  assert.equal(log.errors.length, 1);
  assert.ok(log.errors[0].includes(file), log.errors[0]);
});

Deno.test("corrupt: the quick check finds damaged pages nothing has read yet, and marks the storage not ready", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  const storage = openSqliteStorage(file);
  try {
    assert.equal(await storage.health.ready(), true);
    const [quick] = await storage.health.check({ level: "quick" });
    assert.equal(quick.name, "quick_check");
    assert.equal(quick.status, "damaged");
    assert.ok(quick.problems.length > 0);
    assert.equal(await storage.health.ready(), false);
  } finally {
    storage.close();
  }
});

Deno.test("checks: a sound database passes the quick and the full checks, FTS indexes included", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path, 3);
  const storage = openSqliteStorage(file);
  try {
    assert.deepEqual(await storage.health.check({ level: "quick" }), [
      { name: "quick_check", status: "ok", problems: [] },
    ]);
    const full = await storage.health.check({ level: "full" });
    assert.deepEqual(full.map((c) => [c.name, c.status]), [
      ["integrity_check", "ok"],
      ["fts:chunks_fts", "ok"],
      ["fts:chunks_words", "ok"],
    ]);
    assert.equal(await storage.health.ready(), true);
  } finally {
    storage.close();
  }
});

Deno.test("checks: a full-text index out of step with its chunks fails its own check", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path, 3);
  // An external-content FTS5 index whose rows were deleted behind its back (no trigger ran).
  const raw = new DatabaseSync(file);
  raw.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')");
  raw.close();
  const storage = openSqliteStorage(file);
  try {
    const full = await storage.health.check({ level: "full" });
    const fts = full.find((c) => c.name === "fts:chunks_fts")!;
    assert.equal(fts.status, "damaged", JSON.stringify(full));
    assert.equal(full.find((c) => c.name === "integrity_check")?.status, "ok");
    assert.equal(await storage.health.ready(), false);
  } finally {
    storage.close();
  }
});

Deno.test("translateSqliteError: SQLite's CORRUPT, NOTADB and FULL codes become the storage codes", () => {
  const sqliteError = (message: string, errcode: number) =>
    Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR", errcode });
  const file = "/data/engram/engram.db";
  const corrupt = translateSqliteError(sqliteError("database disk image is malformed", 11), {
    file,
  });
  assert.equal(corrupt.code, "storage_corrupt");
  assert.match(corrupt.message, /^database \/data\/engram\/engram\.db is corrupt/);
  assert.ok(corrupt.remote !== undefined && !corrupt.remote.includes(file));
  // An extended code (SQLITE_CORRUPT_VTAB = 267) counts by its primary code.
  assert.equal(translateSqliteError(sqliteError("vtab", 267), { file }).code, "storage_corrupt");
  const notDb = translateSqliteError(sqliteError("file is not a database", 26), { file });
  assert.equal(notDb.code, "storage_corrupt");
  assert.match(notDb.message, /is not a SQLite database or is corrupt/);
  const full = translateSqliteError(sqliteError("database or disk is full", 13), { file });
  assert.equal(full.code, "storage_full");
  assert.equal(full.retryable, true);
  assert.match(full.message, /the disk holding \/data\/engram is full/);
  assert.ok(full.remote !== undefined && !full.remote.includes("/data/engram"));
  assert.equal(translateSqliteError(sqliteError("disk I/O error", 10)).code, "internal");
});

/** Caps the database at its current size plus `spare` pages: a disk that is nearly full. */
function fillDiskBut(db: DatabaseSync, spare: number): number {
  const { page_count } = db.prepare("PRAGMA page_count").get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${page_count + spare}`);
  return page_count;
}

/** Counts of what the database holds, straight from SQL. */
function counts(db: DatabaseSync) {
  const n = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
  return {
    documents: n("SELECT count(*) AS n FROM documents"),
    versions: n("SELECT count(*) AS n FROM document_versions"),
    chunks: n("SELECT count(*) AS n FROM chunks"),
  };
}

Deno.test("full: a write on a full disk is storage_full and retryable, keeps nothing, reads go on, and succeeds once space is back", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const db = s.storage.connection.db;
  const kept = await s.service.remember(ADMIN, {
    content: "# Kept\n\nwritten before the disk filled",
    path: "/kept.md",
  });
  const before = counts(db);
  fillDiskBut(db, 2);
  const big = `# Big\n\n${"many words that need pages of their own ".repeat(4000)}`;
  const err = await rejection(() => s.service.remember(ADMIN, { content: big, path: "/big.md" }));
  assert.equal(err.code, "storage_full");
  assert.equal(err.retryable, true);
  assert.ok(err.message.includes(dir.path), `the CLI is told the data directory: ${err.message}`);
  assert.match(err.message, /nothing was written/);
  // An update of an existing document fails whole too: no new version, the old one intact.
  const upd = await rejection(() => s.service.update(ADMIN, { path: "/kept.md", content: big }));
  assert.equal(upd.code, "storage_full");
  assert.deepEqual(counts(db), before, "no half-written document, version or chunk remains");
  // Reads are served while the disk is full.
  const got = await s.service.get(ADMIN, { path: "/kept.md" });
  assert.equal(got.version, kept.version);
  assert.match(got.content, /written before the disk filled/);
  const hits = await s.service.search(ADMIN, {
    query: "filled",
    top_k: 5,
    scope: "all",
    sort: "relevance",
  });
  assert.equal(hits.hits.length, 1);
  assert.equal(await s.storage.health.ready(), true, "a full disk is not a broken database");
  // Space comes back: the same write succeeds, and the index is whole.
  db.exec("PRAGMA max_page_count = 1073741823");
  const stored = await s.service.remember(ADMIN, { content: big, path: "/big.md" });
  assert.equal(stored.version, 1);
  const updated = await s.service.update(ADMIN, { path: "/kept.md", content: "# Kept\n\nagain" });
  assert.equal(updated.version, kept.version + 1);
  assert.deepEqual(counts(db).documents, before.documents + 1);
  const full = await s.storage.health.check({ level: "full" });
  assert.ok(full.every((c) => c.status === "ok"), JSON.stringify(full));
});

Deno.test("full: a remote client gets storage_full, retryable, without the data directory", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  fillDiskBut(s.storage.connection.db, 1);
  const raw = await rejection(() =>
    s.service.remember(ADMIN, { content: `# X\n\n${"words ".repeat(20000)}` })
  );
  const log = recordingLogger();
  const result = toolErrorResult(
    concealInternal(raw, { logger: log, what: "tool memory_remember" }),
  );
  const text = (result.content[0] as { text: string }).text;
  assert.match(text, /^storage_full: the database's disk is full/);
  assert.doesNotMatch(text, new RegExp(dir.path));
  assert.deepEqual(result._meta?.["engram/error"], { code: "storage_full", retryable: true });
  assert.ok(log.errors[0].includes(dir.path), "the operator log names the data directory");
});

Deno.test("full: acknowledged writes survive a full disk and a reopen", async () => {
  await using dir = await tempDir();
  const acked: string[] = [];
  {
    using s = await openService(dir.path);
    fillDiskBut(s.storage.connection.db, 40);
    for (let i = 0; i < 200; i++) {
      try {
        await s.service.remember(ADMIN, {
          content: `# Note ${i}\n\n${`filler text number ${i} `.repeat(60)}`,
          path: `/n/${i}.md`,
        });
        acked.push(`/n/${i}.md`);
      } catch (err) {
        assert.equal((err as EngramError).code, "storage_full");
        break;
      }
    }
  }
  assert.ok(acked.length > 0 && acked.length < 200, `acked ${acked.length}`);
  using s = await openService(dir.path);
  const listed = await s.service.list(ADMIN, { prefix: "/", limit: 500 });
  assert.deepEqual(listed.items.map((d) => d.path).sort(), [...acked].sort());
  const db = s.storage.connection.db;
  assert.equal(counts(db).versions, acked.length);
});

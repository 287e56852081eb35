import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { EngramError } from "../../../src/core/errors.ts";
import {
  BUSY_TIMEOUT_MS,
  openDatabase,
  transaction,
  translateSqliteError,
} from "../../../src/storage/sqlite/database.ts";
import { MIGRATIONS } from "../../../src/storage/sqlite/migrations.ts";
import { ADMIN, openService, runEngram, tempDir } from "../../helpers.ts";
import { makeReadOnly, readOnlyMethod } from "./_util.ts";

function pragma(db: DatabaseSync, name: string): unknown {
  return Object.values(db.prepare(`PRAGMA ${name}`).get()!)[0];
}

/** Asserts `fn` throws an EngramError whose message matches every pattern. */
function assertOpenFails(fn: () => unknown, ...patterns: RegExp[]): EngramError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof EngramError, `expected EngramError, got ${caught}`);
  for (const p of patterns) assert.match(caught.message, p);
  return caught;
}

function escape(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
}

const RO = await readOnlyMethod();
const RO_SKIP = typeof RO === "string" ? null : RO.skip;
if (RO_SKIP) console.log(`skipping read-only database tests: ${RO_SKIP}`);

Deno.test("a fresh database file is in WAL mode with foreign keys and the newest schema", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = `${dir}/engram.db`;
    const db = openDatabase(file);
    try {
      assert.equal(pragma(db, "journal_mode"), "wal");
      assert.equal(pragma(db, "foreign_keys"), 1);
      assert.equal(pragma(db, "user_version"), MIGRATIONS.length);
      assert.equal(pragma(db, "busy_timeout"), BUSY_TIMEOUT_MS);
      assert.equal(pragma(db, "synchronous"), 1, "NORMAL by default");
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()
        .map((r) => r.name);
      for (
        const t of ["brains", "documents", "document_versions", "chunks", "chunks_fts", "links"]
      ) {
        assert.ok(tables.includes(t), `table ${t}`);
      }
    } finally {
      db.close();
    }
    // The WAL mode is stored in the file: a plain connection sees it too.
    const plain = new DatabaseSync(file);
    assert.equal(pragma(plain, "journal_mode"), "wal");
    plain.close();
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("synchronous FULL can be asked for", async () => {
  await using dir = await tempDir();
  const db = openDatabase(`${dir.path}/engram.db`, { synchronous: "FULL" });
  assert.equal(pragma(db, "synchronous"), 2);
  db.close();
});

Deno.test("foreign keys are enforced", async () => {
  await using dir = await tempDir();
  const db = openDatabase(`${dir.path}/engram.db`);
  try {
    assert.throws(
      () =>
        db.prepare(
          `INSERT INTO documents (id, brain_id, path, title, source, content_type, byte_size,
             checksum_sha256, commit_sha, version, created_at, updated_at)
           VALUES ('doc_x', 'brn_missing', '/x.md', 'x', 'ingest', 'text/markdown', 0, '', '', 1, '', '')`,
        ).run(),
      /FOREIGN KEY constraint failed/,
    );
  } finally {
    db.close();
  }
});

Deno.test("reopening a database keeps its data and does not re-run migrations", async () => {
  await using dir = await tempDir();
  let id: string;
  {
    using s = await openService(dir.path);
    id = (await s.service.remember(ADMIN, { content: "# Kept\nacross reopen" })).id;
    // A migration run again would fail on CREATE TABLE of an existing table.
    s.storage.connection.db.exec("CREATE TABLE canary (x)");
  }
  for (let i = 0; i < 2; i++) {
    using s = await openService(dir.path);
    assert.equal(pragma(s.storage.connection.db, "user_version"), MIGRATIONS.length);
    assert.equal((await s.service.get(ADMIN, { id })).content, "# Kept\nacross reopen");
    assert.equal((await s.service.listBrains(ADMIN)).length, 1, "no second default brain");
    assert.ok(
      s.storage.connection.db.prepare("SELECT name FROM sqlite_master WHERE name = 'canary'").get(),
    );
  }
});

Deno.test("a version-1 database is upgraded and its existing words become prefix-searchable", async () => {
  await using dir = await tempDir();
  {
    using s = await openService(dir.path);
    await s.service.remember(ADMIN, { content: "# Log\n\nrunning in the morning" });
    // Turn it back into a schema-1 database that already holds a document.
    s.storage.connection.db.exec(`
      DROP TRIGGER chunks_words_ai; DROP TRIGGER chunks_words_ad; DROP TRIGGER chunks_words_au;
      DROP TABLE chunks_words_vocab; DROP TABLE chunks_words;
      DROP TABLE jobs;
      DROP TABLE locks; DROP TABLE chunk_vectors; DROP INDEX sessions_brain;
      DROP TABLE tokens;
      DROP TABLE audit_drops;
      DROP TABLE upstream_servers;
      DROP TABLE capability_pins; DROP TABLE capability_sightings;
      DROP TABLE upstream_traces;
      DROP TABLE document_deletions;
      DROP TABLE document_provenance;
      DROP TABLE trusted_review_keys;
      DROP TABLE oauth_codes; DROP TABLE oauth_refresh_tokens; DROP TABLE oauth_grants;
      DROP TABLE oauth_pairing_codes; DROP TABLE oauth_clients;
      DROP TABLE upstream_credentials;
      ALTER TABLE audit DROP COLUMN detail;
      PRAGMA user_version = 1;
    `);
  }
  using s = await openService(dir.path);
  assert.equal(pragma(s.storage.connection.db, "user_version"), MIGRATIONS.length);
  const r = await s.service.search(ADMIN, {
    query: "runn*",
    top_k: 5,
    scope: "all",
    sort: "relevance",
  });
  assert.equal(r.hits.length, 1);
  assert.equal(r.hits[0].title, "Log");
});

Deno.test("a database from a newer engram is refused with a clear message", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  openDatabase(file).close();
  const raw = new DatabaseSync(file);
  raw.exec(`PRAGMA user_version = ${MIGRATIONS.length + 5}`);
  raw.close();
  assertOpenFails(() => openDatabase(file), /newer than this engram/, /upgrade engram/);
});

Deno.test("a file of random bytes is reported as not a SQLite database, naming the file", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  await Deno.writeFile(file, crypto.getRandomValues(new Uint8Array(16384)));
  const err = assertOpenFails(
    () => openDatabase(file),
    escape(file),
    /not a SQLite database or is corrupt/,
    /--data/,
  );
  assert.equal(err.code, "storage_corrupt");
  assert.ok(err.cause instanceof Error, "the SQLite error is kept as the cause");
});

Deno.test("a text file is reported as not a SQLite database", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/notes.db`;
  await Deno.writeTextFile(file, "# This is markdown, not a database\n".repeat(200));
  assertOpenFails(() => openDatabase(file), escape(file), /not a SQLite database/);
});

Deno.test("a directory where the database file should be is reported, naming the path", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  await Deno.mkdir(file);
  assertOpenFails(() => openDatabase(file), escape(file), /cannot be opened for writing/, /--data/);
});

Deno.test({
  name: "a read-only database file is reported at open, naming the file and the fix",
  ignore: RO_SKIP !== null,
  fn: async () => {
    await using dir = await tempDir();
    const file = `${dir.path}/engram.db`;
    {
      using s = await openService(dir.path);
      await s.service.remember(ADMIN, { content: "# Existing" });
    }
    const undo = await makeReadOnly(file, RO as "chmod" | "chattr");
    try {
      assertOpenFails(
        () => openDatabase(file),
        escape(file),
        /cannot be opened for writing/,
        /permissions/,
        /--data/,
      );
    } finally {
      await undo();
    }
    // Nothing was damaged: once writable again it opens normally.
    using s = await openService(dir.path);
    assert.equal((await s.service.stats(ADMIN, {})).documents, 1);
  },
});

Deno.test({
  name: "a read-only data directory is reported at open, with or without a database in it",
  ignore: RO_SKIP !== null,
  fn: async () => {
    await using dir = await tempDir();
    const empty = `${dir.path}/empty`;
    const filled = `${dir.path}/filled`;
    await Deno.mkdir(empty);
    await Deno.mkdir(filled);
    openDatabase(`${filled}/engram.db`).close();
    const undo = [
      await makeReadOnly(empty, RO as "chmod" | "chattr"),
      await makeReadOnly(filled, RO as "chmod" | "chattr"),
    ];
    try {
      for (const d of [empty, filled]) {
        assertOpenFails(
          () => openDatabase(`${d}/engram.db`),
          escape(`${d}/engram.db`),
          /cannot be opened for writing/,
          /permissions/,
        );
      }
    } finally {
      for (const u of undo) await u();
    }
  },
});

Deno.test({
  name: "the CLI on a read-only database exits 1 with the reason and no stack trace",
  ignore: RO_SKIP !== null,
  fn: async () => {
    await using dir = await tempDir();
    const file = `${dir.path}/engram.db`;
    openDatabase(file).close();
    const undo = await makeReadOnly(file, RO as "chmod" | "chattr");
    try {
      const r = await runEngram(["search", "x"], { dataDir: dir.path });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, escape(file));
      assert.match(r.stderr, /cannot be opened for writing/);
      assert.doesNotMatch(r.stderr, /^\s+at /m);
    } finally {
      await undo();
    }
  },
});

Deno.test("the CLI on a corrupt engram.db exits 1 with a clear message and no stack trace", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  await Deno.writeFile(file, crypto.getRandomValues(new Uint8Array(8192)));
  const r = await runEngram(["search", "x"], { dataDir: dir.path });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^engram: storage_corrupt: database /);
  assert.match(r.stderr, escape(file));
  assert.match(r.stderr, /is not a SQLite database or is corrupt/);
  assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  assert.doesNotMatch(r.stderr, /Uncaught|error: /);
  assert.equal(r.stderr.trim().split("\n").length, 1, "one line");
});

Deno.test("a write blocked by another connection's lock past the busy timeout is busy and retryable", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  s.storage.connection.db.exec("PRAGMA busy_timeout = 50");
  const other = new DatabaseSync(`${dir.path}/engram.db`);
  other.exec("BEGIN IMMEDIATE");
  try {
    await assert.rejects(
      s.service.remember(ADMIN, { content: "# Blocked" }),
      (err: unknown) => {
        assert.ok(err instanceof EngramError);
        assert.equal(err.code, "busy");
        assert.equal(err.retryable, true);
        assert.match(err.message, /locked by another engram process/);
        return true;
      },
    );
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  // Reads are not blocked by a writer in WAL mode, and the write works once the lock is gone.
  const doc = await s.service.remember(ADMIN, { content: "# Blocked" });
  assert.equal(doc.version, 1);
});

Deno.test("readers are not blocked while another connection holds the write lock", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# Visible\nbefore the lock" });
  const other = new DatabaseSync(`${dir.path}/engram.db`);
  other.exec("BEGIN IMMEDIATE");
  try {
    s.storage.connection.db.exec("PRAGMA busy_timeout = 50");
    const hits = await s.service.search(ADMIN, {
      query: "visible",
      top_k: 5,
      scope: "all",
      sort: "relevance",
    });
    assert.equal(hits.hits.length, 1);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
});

Deno.test("translateSqliteError maps lock errors to busy and everything else to internal", () => {
  const busy = translateSqliteError(new Error("database is locked"));
  assert.equal(busy.code, "busy");
  const other = translateSqliteError(new Error("disk I/O error"));
  assert.equal(other.code, "internal");
  assert.equal(other.message, "storage error: disk I/O error");
  const same = new EngramError("not_found", "x");
  assert.equal(translateSqliteError(same), same);
});

Deno.test("transaction commits on success and rolls everything back on error", async () => {
  await using dir = await tempDir();
  const db = openDatabase(`${dir.path}/engram.db`);
  try {
    db.exec("CREATE TABLE t (x)");
    transaction(db, () => db.exec("INSERT INTO t VALUES (1)"));
    assert.throws(
      () =>
        transaction(db, () => {
          db.exec("INSERT INTO t VALUES (2)");
          throw new Error("boom");
        }),
      /boom/,
    );
    assert.deepEqual(db.prepare("SELECT x FROM t").all().map((r) => r.x), [1]);
    assert.equal(db.isTransaction, false);
  } finally {
    db.close();
  }
});

Deno.test("a new database and its -wal and -shm files are readable by their owner alone", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const db = openDatabase(file);
  try {
    db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      const mode = (await Deno.stat(f)).mode! & 0o777;
      assert.equal(mode, 0o600, `${f} has mode ${mode.toString(8)}`);
    }
  } finally {
    db.close();
  }
});

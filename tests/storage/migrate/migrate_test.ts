/**
 * @module `engram migrate`'s copying (src/storage/migrate/): SQLite → PostgreSQL → SQLite gives back
 * every table row for row (row ids, flags, vectors, awkward text) with the derived search data
 * rebuilt on each side; a target holding data is refused unless forced; a copy stopped after some
 * batches resumes where it stopped; the refusals name what is wrong and the fix. Against a real
 * throwaway PostgreSQL cluster (tests/storage/postgres/_cluster.ts).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { EngramError } from "../../../src/core/errors.ts";
import { migrateDatabase, type MigrateResult } from "../../../src/storage/migrate/migrate.ts";
import { TABLES } from "../../../src/storage/migrate/tables.ts";
import { openPostgresStorage } from "../../../src/storage/postgres/postgres_storage.ts";
import { tempDir } from "../../helpers.ts";
import { searchQuery } from "../contracts/backend.ts";
import { type Cluster, startCluster } from "../postgres/_cluster.ts";
import { dumpSqlite } from "./_dump.ts";
import { fillEveryTable } from "./_fixture.ts";

const cluster = await startCluster();

/** The EngramError `fn` rejects with. */
async function refusal(fn: () => Promise<unknown>): Promise<EngramError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof EngramError, `expected an EngramError, got ${err}`);
    return err;
  }
  assert.fail("expected a refusal");
}

/** Asserts a complete, verified copy with every table non-empty. */
function assertComplete(r: MigrateResult): void {
  assert.equal(r.status, "complete");
  assert.deepEqual(r.tables.map((t) => t.table), TABLES.map((t) => t.name));
  for (const t of r.tables) {
    assert.ok(t.ok, `${t.table} verified`);
    assert.ok(t.source_rows > 0, `${t.table} has rows`);
    assert.equal(t.source_checksum, t.target_checksum);
    assert.match(t.source_checksum, /^[0-9a-f]{64}$/);
  }
}

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  const pg = cluster as Cluster;

  Deno.test("migrate: SQLite → PostgreSQL → SQLite gives back every table row for row, search rebuilt on each side", async () => {
    await using dir = await tempDir();
    const db = await pg.createEmptyDatabase();
    try {
      const first = `${dir.path}/first.db`;
      const chunks = fillEveryTable(first);
      const there = await migrateDatabase(first, db.url, { batchRows: 7 });
      assertComplete(there);
      assert.equal(there.resumed, false);
      assert.equal(there.copied_rows, there.tables.reduce((n, t) => n + t.source_rows, 0));
      assert.deepEqual(there.sealed_logins, ["Remote"]);
      assert.equal(there.from, `SQLite ${first}`);
      assert.match(there.to, /^PostgreSQL 127\.0\.0\.1:\d+\/engram_t/);

      // PostgreSQL derived its own search data: the tsvector column, the word list, sequences.
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        const [{ n }] = await sql`SELECT count(*)::int AS n FROM chunks
                                   WHERE fts @@ phraseto_tsquery('engram', 'quokka')`;
        assert.equal(n, chunks);
        const words =
          await sql`SELECT word, docs FROM search_words WHERE word IN ('zebra3', 'cafe')`;
        assert.deepEqual(
          words.map((w) => [w.word, w.docs]).sort(),
          [["cafe", chunks], ["zebra3", 3]],
        );
        assert.equal((await sql`SELECT to_regclass('engram_migration') AS t`)[0].t, null);
      } finally {
        await sql.end();
      }
      const node = await openPostgresStorage({ url: db.url });
      try {
        const brain = await node.brains.findBrain("default");
        assert.ok(brain);
        const hits = await node.search.search(searchQuery(brain.id, "importer"));
        assert.ok(hits.length > 0, "a node on the copy finds notes");
        // A row written by a node after the copy gets a seq past the copied ones.
        const made = await node.brains.createBrain({
          id: "b-new",
          slug: "new",
          name: "New",
          visibility: "private",
        });
        assert.equal(made.slug, "new");
      } finally {
        await node.close();
      }

      const second = `${dir.path}/second.db`;
      const back = await migrateDatabase(db.url, second, { batchRows: 5 });
      assert.equal(back.status, "complete");
      const a = dumpSqlite(first);
      const b = dumpSqlite(second);
      b.brains = b.brains.filter((r) => (r as { id: string }).id !== "b-new");
      assert.deepEqual(Object.keys(b), Object.keys(a));
      for (const name of Object.keys(a)) {
        if (!name.startsWith("(")) assert.ok(a[name].length > 0, `${name} is filled`);
        assert.deepEqual(b[name], a[name], `${name} came back identical`);
      }
    } finally {
      await db.drop();
    }
  });

  Deno.test("migrate: a target holding data is refused, naming what it holds; --force empties it first", async () => {
    await using dir = await tempDir();
    const file = `${dir.path}/src.db`;
    fillEveryTable(file, { documents: 4 });
    const db = await pg.createDatabase();
    try {
      await migrateDatabase(file, db.url);
      const again = await refusal(() => migrateDatabase(file, db.url));
      assert.equal(again.code, "conflict");
      assert.match(again.message, /^PostgreSQL 127\.0\.0\.1:\d+\/\w+ is not empty \(brains: 2, /);
      assert.match(again.message, /pass --force to empty it and copy into it/);
      const other = `${dir.path}/other.db`;
      fillEveryTable(other, { documents: 3 });
      const forced = await migrateDatabase(other, db.url, { force: true });
      assertComplete(forced);
      assert.equal(forced.tables.find((t) => t.table === "documents")?.target_rows, 3);

      // The other way: a SQLite file holding data.
      const lite = await refusal(() => migrateDatabase(db.url, file));
      assert.equal(lite.code, "conflict");
      assert.match(lite.message, new RegExp(`^SQLite ${file} is not empty \\(brains: 2, `));
    } finally {
      await db.drop();
    }
  });

  Deno.test("migrate: a target whose only row is an empty default brain counts as empty", async () => {
    await using dir = await tempDir();
    const file = `${dir.path}/src.db`;
    fillEveryTable(file, { documents: 3 });
    const db = await pg.createDatabase();
    try {
      const node = await openPostgresStorage({ url: db.url });
      await node.brains.createBrain({
        id: "someone-elses-default",
        slug: "default",
        name: "Default",
        visibility: "private",
      });
      await node.close();
      const r = await migrateDatabase(file, db.url);
      assertComplete(r);
    } finally {
      await db.drop();
    }
  });

  Deno.test("migrate: a copy stopped after some batches resumes where it stopped and ends identical", async () => {
    await using dir = await tempDir();
    const file = `${dir.path}/src.db`;
    fillEveryTable(file);
    const db = await pg.createEmptyDatabase();
    try {
      const controller = new AbortController();
      let batches = 0;
      const stopped = await migrateDatabase(file, db.url, {
        batchRows: 4,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.phase === "copying" && ++batches === 6) controller.abort();
        },
      });
      assert.equal(stopped.status, "stopped");
      assert.deepEqual(stopped.tables, []);
      assert.ok(stopped.copied_rows > 0);
      // A copy from another source is not mixed in.
      const other = `${dir.path}/other.db`;
      fillEveryTable(other, { documents: 3 });
      const mixed = await refusal(() => migrateDatabase(other, db.url));
      assert.equal(mixed.code, "conflict");
      assert.equal(
        mixed.message,
        `${stopped.to} holds an unfinished copy from SQLite ${file}; run engram migrate again with that source to finish it, or pass --force to empty the target and start over`,
      );
      const resumed = await migrateDatabase(file, db.url, { batchRows: 4 });
      assertComplete(resumed);
      assert.equal(resumed.resumed, true);
      const total = resumed.tables.reduce((n, t) => n + t.source_rows, 0);
      assert.equal(stopped.copied_rows + resumed.copied_rows, total, "no row copied twice");
      const back = `${dir.path}/back.db`;
      assertComplete(await migrateDatabase(db.url, back));
      assert.deepEqual(dumpSqlite(back), dumpSqlite(file));
    } finally {
      await db.drop();
    }
  });

  Deno.test("migrate: refusals name the problem and the fix", async () => {
    await using dir = await tempDir();
    const db = await pg.createEmptyDatabase();
    try {
      const both = await refusal(() => migrateDatabase(`${dir.path}/a.db`, `${dir.path}/b.db`));
      assert.equal(both.code, "invalid_argument");
      assert.match(both.message, /both SQLite files \(use engram backup and engram restore\)/);
      const missing = await refusal(() => migrateDatabase(`${dir.path}/none.db`, db.url));
      assert.equal(
        missing.message,
        `--from: no SQLite file at ${dir.path}/none.db; give the path of an engram.db, or a postgres:// URL`,
      );
      const migrated = await pg.createDatabase();
      try {
        const noFolder = await refusal(() =>
          migrateDatabase(migrated.url, `${dir.path}/none/c.db`)
        );
        assert.equal(
          noFolder.message,
          `--to: no folder ${dir.path}/none for the SQLite file; create it first, or give another path`,
        );
      } finally {
        await migrated.drop();
      }
      const notEngram = await refusal(() => migrateDatabase(db.url, `${dir.path}/c.db`));
      assert.equal(notEngram.code, "invalid_argument");
      assert.match(notEngram.message, /holds no engram database \(no engram_schema table\)/);
      const port = (() => {
        const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const p = (l.addr as Deno.NetAddr).port;
        l.close();
        return p;
      })();
      const file = `${dir.path}/d.db`;
      fillEveryTable(file, { documents: 3 });
      const down = await refusal(() =>
        migrateDatabase(file, `postgres://u:secret@127.0.0.1:${port}/x`)
      );
      assert.match(
        down.message,
        new RegExp(`cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/x`),
      );
      assert.match(down.message, /check the URL given to --to/);
      assert.ok(!down.message.includes("secret"));
      // A table this engram does not know (a newer engram's) is refused rather than left behind.
      const lite = new DatabaseSync(file);
      lite.exec("CREATE TABLE future_things (id TEXT)");
      lite.close();
      const newer = await refusal(() => migrateDatabase(file, db.url));
      assert.match(newer.message, /holds tables this engram does not copy \(future_things\)/);
    } finally {
      await db.drop();
    }
  });
}

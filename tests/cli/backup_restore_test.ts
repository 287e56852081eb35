/** @module `engram backup` and `engram restore`, run as real processes on temp data directories. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { callOk, connectStdio, runEngram, tempDir } from "../helpers.ts";
import { MIGRATIONS } from "../../src/storage/sqlite/migrations.ts";
import { assertFails, assertOk, exists, runJson, writeText } from "./_util.ts";

interface BackupJson {
  file: string;
  bytes: number;
  schema_version: number;
  brains: number;
  documents: number;
  versions: number;
  sessions: number;
}

interface RestoreJson extends BackupJson {
  database: string;
  replaced: boolean;
  from_schema_version: number;
}

/** Every version row of a database, in a stable order, for comparing two databases. */
function versions(dbFile: string): unknown[] {
  const db = new DatabaseSync(dbFile, { readOnly: true });
  try {
    return db.prepare(
      `SELECT d.id, d.path, d.version AS current, d.created_at, b.slug, v.version, v.content,
              v.checksum_sha256
       FROM document_versions v JOIN documents d ON d.id = v.document_id
       JOIN brains b ON b.id = d.brain_id ORDER BY d.path, v.version`,
    ).all().map((r) => ({ ...r }));
  } finally {
    db.close();
  }
}

function integrity(dbFile: string): string {
  const db = new DatabaseSync(dbFile, { readOnly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
      .integrity_check;
  } finally {
    db.close();
  }
}

function mode(path: string): string {
  return ((Deno.statSync(path).mode ?? 0) & 0o777).toString(8);
}

/** A data dir with two brains, three documents, one of them in two versions. */
async function seeded(dataDir: string): Promise<void> {
  const remember = async (path: string, text: string, brain?: string) =>
    assertOk(
      await runEngram(["remember", "--path", path, ...(brain ? ["--brain", brain] : []), "-"], {
        dataDir,
        stdin: text,
      }),
    );
  await remember("/notes/importer.md", "# Importer\nShip the importer on Friday.\n");
  await remember("/notes/importer.md", "# Importer\nShip the importer on Monday instead.\n");
  await remember("/notes/zebra.md", "# Zebra\nStripes are unique per animal.\n");
  assertOk(await runEngram(["brains", "create", "Work", "--slug", "work"], { dataDir }));
  await remember("/plans/q3.md", "# Q3\nHire two engineers.\n", "work");
}

Deno.test("backup then restore into a fresh data dir keeps every document and version", async () => {
  await using src = await tempDir();
  await using dst = await tempDir();
  await using out = await tempDir();
  await seeded(src.path);
  // FILE is relative: it resolves against where the user stands, not the data directory.
  const b = await runJson<BackupJson>(["backup", "copy.db", "--json"], {
    dataDir: src.path,
    cwd: out.path,
  });
  const file = `${out.path}/copy.db`;
  assert.equal(b.file, file);
  assert.equal(b.bytes, Deno.statSync(file).size);
  assert.deepEqual(
    { brains: b.brains, documents: b.documents, versions: b.versions, schema: b.schema_version },
    { brains: 2, documents: 3, versions: 4, schema: MIGRATIONS.length },
  );
  assert.equal(mode(file), "600", "a backup holds every note: owner-only");
  assert.equal(integrity(file), "ok");
  // Only the finished file: no temp file or -wal left beside it.
  assert.deepEqual([...Deno.readDirSync(out.path)].map((e) => e.name), ["copy.db"]);

  const r = await runJson<RestoreJson>(["restore", file, "--json"], { dataDir: dst.path });
  assert.equal(r.replaced, false);
  assert.equal(r.database, `${dst.path}/engram.db`);
  assert.equal(r.documents, 3);
  assert.equal(mode(`${dst.path}/engram.db`), "600");
  assert.deepEqual(versions(`${dst.path}/engram.db`), versions(`${src.path}/engram.db`));

  const hits = await runJson<{ hits: { path: string }[] }>(
    ["search", "importer Monday", "--json"],
    { dataDir: dst.path },
  );
  assert.deepEqual(hits.hits.map((h) => h.path), ["/notes/importer.md"]);
  const work = await runJson<{ hits: { path: string }[] }>(
    ["search", "engineers", "--brain", "work", "--json"],
    { dataDir: dst.path },
  );
  assert.deepEqual(work.hits.map((h) => h.path), ["/plans/q3.md"]);
});

Deno.test("backup prints path, size and counts for people", async () => {
  await using src = await tempDir();
  await seeded(src.path);
  const r = await runEngram(["backup", "b.db"], { dataDir: src.path });
  assertOk(r);
  assert.match(
    r.stdout,
    new RegExp(
      `^backed up to ${src.path}/b\\.db \\([\\d.]+ KiB\\): 2 brains, 3 documents \\(4 versions\\), 0 sessions; schema ${MIGRATIONS.length}\\n$`,
    ),
  );
});

Deno.test("a backup taken while another process writes holds a whole prefix of the writes", async () => {
  await using src = await tempDir();
  await using out = await tempDir();
  await using session = await connectStdio(src.path, { args: ["--tier", "write"] });
  let written = 0;
  let stop = false;
  let firstWrites!: () => void;
  const warmedUp = new Promise<void>((resolve) => (firstWrites = resolve));
  const body = (i: number) => `# Note ${i}\n${`line ${i} of the concurrent writer\n`.repeat(40)}`;
  const writer = (async () => {
    while (!stop) {
      await callOk(session.client, "memory_remember", {
        path: `/n/${written}.md`,
        content: body(written),
      });
      written++;
      if (written === 20) firstWrites();
    }
  })();
  await warmedUp;
  const before = written;
  const r = await runEngram(["backup", `${out.path}/live.db`, "--json"], { dataDir: src.path });
  const after = written;
  stop = true;
  await writer;
  assertOk(r);
  assert.ok(after > before, "the writer kept writing while the backup ran");

  const file = `${out.path}/live.db`;
  assert.equal(integrity(file), "ok");
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare(
      `SELECT d.path, v.content FROM documents d
       JOIN document_versions v ON v.document_id = d.id AND v.version = d.version`,
    ).all() as { path: string; content: string }[];
    const n = rows.length;
    assert.ok(n >= before && n <= after, `backup holds ${n}; writes were ${before}..${after}`);
    // A consistent snapshot of one writer is exactly its first n documents, each whole.
    const byPath = new Map(rows.map((row) => [row.path, row.content]));
    for (let i = 0; i < n; i++) assert.equal(byPath.get(`/n/${i}.md`), body(i), `note ${i}`);
    const fts = db.prepare(
      "SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'concurrent'",
    )
      .get() as { n: number };
    assert.equal(Number(fts.n), n, "the full-text index matches the documents it holds");
    assert.equal(
      (JSON.parse(r.stdout) as BackupJson).documents,
      n,
      "the printed count is the copy's",
    );
  } finally {
    db.close();
  }
});

Deno.test("backup refuses to overwrite an existing file unless --force", async () => {
  await using src = await tempDir();
  await using out = await tempDir();
  await seeded(src.path);
  const file = await writeText(out.path, "keep.db", "precious\n");
  const r = await runEngram(["backup", file], { dataDir: src.path });
  assertFails(
    r,
    1,
    `engram: conflict: ${file} already exists; choose another file or pass --force`,
  );
  assert.equal(await Deno.readTextFile(file), "precious\n");

  const b = await runJson<BackupJson>(["backup", file, "--force", "--json"], { dataDir: src.path });
  assert.equal(b.documents, 3);
  assert.equal(integrity(file), "ok");
  assert.equal(mode(file), "600", "an overwritten file gets the backup's owner-only mode");
  assert.deepEqual([...Deno.readDirSync(out.path)].map((e) => e.name), ["keep.db"]);
});

Deno.test("backup refuses the live database, a missing database and a missing folder", async () => {
  await using src = await tempDir();
  await using empty = await tempDir();
  await seeded(src.path);
  assertFails(
    await runEngram(["backup", "engram.db", "--force"], { dataDir: src.path }),
    2,
    "is the live database; write the backup to a file outside it",
  );
  assertFails(
    await runEngram(["backup", `${empty.path}/b.db`], {
      dataDir: `${empty.path}/none`,
      cwd: empty.path,
    }),
    1,
    `engram: not_found: no database at ${empty.path}/none/engram.db to back up; pass --data DIR`,
  );
  assertFails(
    await runEngram(["backup", `${empty.path}/no/such/b.db`], { dataDir: src.path }),
    1,
    `directory of ${empty.path}/no/such/b.db does not exist`,
  );
});

Deno.test("restore refuses a database that holds data unless --force", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await seeded(a.path);
  assertOk(await runEngram(["backup", "a.db"], { dataDir: a.path }));
  assertOk(
    await runEngram(["remember", "--path", "/mine.md", "-"], { dataDir: b.path, stdin: "x" }),
  );

  const r = await runEngram(["restore", `${a.path}/a.db`], { dataDir: b.path });
  assertFails(
    r,
    1,
    `engram: conflict: database ${b.path}/engram.db already holds data (1 document); pass --force to replace it`,
  );
  assert.equal(versions(`${b.path}/engram.db`).length, 1, "nothing was replaced");

  // A brain besides default is data too, even with no documents in it.
  await using c = await tempDir();
  assertOk(await runEngram(["brains", "create", "Empty"], { dataDir: c.path }));
  assertFails(
    await runEngram(["restore", `${a.path}/a.db`], { dataDir: c.path }),
    1,
    "already holds data (1 brain besides default)",
  );

  const forced = await runJson<RestoreJson>(["restore", `${a.path}/a.db`, "--force", "--json"], {
    dataDir: b.path,
  });
  assert.equal(forced.replaced, true);
  assert.deepEqual(
    [...Deno.readDirSync(b.path)].map((e) => e.name).filter((n) => n.includes("engram.db")),
    ["engram.db"],
    "no temp file or stale -wal/-shm left",
  );
  assert.equal(mode(`${b.path}/engram.db`), "600");
  assert.deepEqual(versions(`${b.path}/engram.db`), versions(`${a.path}/engram.db`));
});

Deno.test("restore onto a fresh but initialised database (only an empty default) needs no --force", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await seeded(a.path);
  assertOk(await runEngram(["backup", "a.db"], { dataDir: a.path }));
  assertOk(await runEngram(["brains", "list"], { dataDir: b.path }));
  const r = await runJson<RestoreJson>(["restore", `${a.path}/a.db`, "--json"], {
    dataDir: b.path,
  });
  assert.equal(r.replaced, true);
  assert.equal(r.documents, 3);
});

Deno.test("restore refuses while engram stdio has the database open, and works once it exits", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await seeded(a.path);
  assertOk(await runEngram(["backup", "a.db"], { dataDir: a.path }));
  const session = await connectStdio(b.path);
  let closed = false;
  try {
    const r = await runEngram(["restore", `${a.path}/a.db`, "--force"], { dataDir: b.path });
    assertFails(
      r,
      75,
      `engram: busy: database ${b.path}/engram.db is open in another engram process; stop engram serve, engram stdio`,
    );
    assert.match(r.stderr, /then run engram restore again/);
    // The running session still works on its (untouched) database.
    const brains = await callOk<{ items: unknown[] }>(session.client, "memory_list_brains");
    assert.equal(brains.items.length, 1);
    await session.client.close(); // waits for the process to exit
    closed = true;
    const ok = await runJson<RestoreJson>(["restore", `${a.path}/a.db`, "--json"], {
      dataDir: b.path,
    });
    assert.equal(ok.documents, 3);
  } finally {
    if (!closed) await session.client.close();
  }
});

Deno.test("restore refuses a file that is not an engram database, naming what is wrong", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await seeded(a.path);
  assertOk(await runEngram(["backup", "a.db"], { dataDir: a.path }));
  const whole = await Deno.readFile(`${a.path}/a.db`);

  const text = await writeText(a.path, "notes.txt", "just some text\n");
  assertFails(
    await runEngram(["restore", text], { dataDir: b.path }),
    2,
    `engram: backup ${text} is not a SQLite database; pass a file written by engram backup`,
  );
  const truncated = `${a.path}/truncated.db`;
  await Deno.writeFile(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  assertFails(
    await runEngram(["restore", truncated], { dataDir: b.path }),
    2,
    `engram: backup ${truncated} is truncated (${
      Math.floor(whole.length / 2)
    } bytes, its header says ${whole.length}); use a complete copy`,
  );
  const other = `${a.path}/other.db`;
  const db = new DatabaseSync(other);
  db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
  db.close();
  assertFails(
    await runEngram(["restore", other], { dataDir: b.path }),
    2,
    `engram: backup ${other} is a SQLite database but not an engram one`,
  );
  assertFails(
    await runEngram(["restore", `${a.path}/missing.db`], { dataDir: b.path }),
    1,
    `engram: not_found: backup ${a.path}/missing.db not found`,
  );
  // Nothing was created by the refused restores.
  assert.equal(await exists(`${b.path}/engram.db`), false);
  assert.deepEqual([...Deno.readDirSync(b.path)], []);
});

Deno.test("restore refuses a backup from a newer engram and migrates one from an older", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await seeded(a.path);
  assertOk(await runEngram(["backup", "a.db"], { dataDir: a.path }));
  const newer = `${a.path}/newer.db`;
  await Deno.copyFile(`${a.path}/a.db`, newer);
  const db = new DatabaseSync(newer);
  db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  assertFails(
    await runEngram(["restore", newer], { dataDir: b.path }),
    2,
    `engram: backup ${newer} has schema version ${
      MIGRATIONS.length + 1
    }, newer than this engram knows (${MIGRATIONS.length}); restore it with a newer engram`,
  );

  const older = `${a.path}/older.db`;
  const old = new DatabaseSync(older);
  for (const m of MIGRATIONS.slice(0, MIGRATIONS.length - 1)) old.exec(m);
  old.exec(`PRAGMA user_version = ${MIGRATIONS.length - 1}`);
  old.exec(
    `INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
     VALUES ('brn_old', 'archive', 'Archive', 'private', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')`,
  );
  old.close();
  const r = await runEngram(["restore", older], { dataDir: b.path });
  assertOk(r);
  assert.match(
    r.stdout,
    new RegExp(`schema ${MIGRATIONS.length - 1}, migrated to ${MIGRATIONS.length}\\n$`),
  );
  const brains = await runJson<{ items: { slug: string }[] }>(["brains", "list", "--json"], {
    dataDir: b.path,
  });
  assert.deepEqual(brains.items.map((x) => x.slug), ["archive"]);
});

Deno.test("a corrupt database's message names engram restore, and that restore works", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await seeded(a.path);
  assertOk(await runEngram(["backup", "a.db"], { dataDir: a.path }));
  await Deno.writeTextFile(
    `${b.path}/engram.db`,
    "this is not a database, it is garbage\n".repeat(200),
  );

  const broken = await runEngram(["search", "x"], { dataDir: b.path });
  assertFails(broken, 1, "restore a backup with: engram restore FILE --force");
  assertFails(
    await runEngram(["restore", `${a.path}/a.db`], { dataDir: b.path }),
    1,
    `engram: conflict: database ${b.path}/engram.db is unreadable (not a database or corrupt); pass --force`,
  );
  assertOk(await runEngram(["restore", `${a.path}/a.db`, "--force"], { dataDir: b.path }));
  const hits = await runJson<{ hits: unknown[] }>(["search", "zebra", "--json"], {
    dataDir: b.path,
  });
  assert.equal(hits.hits.length, 1);
});

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ADMIN, openService, tempDir } from "../../helpers.ts";
import { type Ack, Writer } from "./_util.ts";

/** Starts writers together: all open the store, then all get the go signal at once. */
async function startTogether(writers: Writer[]): Promise<void> {
  await Promise.all(writers.map((w) => w.ready()));
  await Promise.all(writers.map((w) => w.go()));
}

async function disposeAll(writers: Writer[]): Promise<void> {
  await Promise.all(writers.map((w) => w[Symbol.asyncDispose]()));
}

Deno.test("four processes writing to one new database file lose no acknowledged document", async () => {
  await using dir = await tempDir();
  const dbFile = `${dir.path}/engram.db`;
  const PER_WRITER = 50;
  // The file does not exist yet: the writers race to create and migrate it.
  const writers = [0, 1, 2, 3].map((w) => new Writer(dbFile, "distinct", w, PER_WRITER));
  try {
    await startTogether(writers);
    const acks = (await Promise.all(writers.map((w) => w.rest()))).flat();
    for (const w of writers) {
      const { code, stderr } = await w.finish();
      assert.equal(code, 0, `writer failed: ${stderr}`);
    }
    assert.equal(acks.length, 4 * PER_WRITER);
    assert.equal(new Set(acks.map((a) => a.id)).size, 4 * PER_WRITER, "ids are distinct");

    using s = await openService(dir.path);
    for (const ack of acks) {
      const doc = await s.service.get(ADMIN, { id: ack.id });
      assert.equal(doc.path, ack.path);
      assert.equal(doc.content, ack.content);
      assert.equal(doc.version, 1);
    }
    const stats = await s.service.stats(ADMIN, {});
    assert.equal(stats.documents, 4 * PER_WRITER);
    assert.equal((await s.service.listBrains(ADMIN)).length, 1, "exactly one default brain");
    const hits = await s.service.search(ADMIN, {
      query: "writer 3 note 49",
      top_k: 5,
      scope: "all",
      sort: "relevance",
    });
    assert.equal(hits.hits[0].path, "/memory/global/w3/n49.md");
  } finally {
    await disposeAll(writers);
  }
});

Deno.test("a writer killed with SIGKILL loses none of the documents it acknowledged", async () => {
  await using dir = await tempDir();
  const dbFile = `${dir.path}/engram.db`;
  const KILL_AFTER = 25;
  const writer = new Writer(dbFile, "loop", 9);
  try {
    await writer.ready();
    await writer.go();
    const acks: Ack[] = [];
    while (acks.length < KILL_AFTER) {
      const ack = await writer.next();
      assert.ok(ack, "the writer stopped before it was killed");
      acks.push(ack);
    }
    writer.child.kill("SIGKILL");
    // Lines already written before the kill were acknowledged too.
    acks.push(...await writer.rest());
    const { signal } = await writer.finish();
    assert.equal(signal, "SIGKILL");
    assert.ok(acks.length >= KILL_AFTER);

    // The killed process left its WAL behind; a new connection recovers it.
    const raw = new DatabaseSync(dbFile);
    try {
      const check = raw.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
      assert.equal(check.integrity_check, "ok");
    } finally {
      raw.close();
    }
    using s = await openService(dir.path);
    for (const ack of acks) {
      const doc = await s.service.get(ADMIN, { id: ack.id });
      assert.equal(doc.content, ack.content);
      assert.equal(doc.path, ack.path);
    }
    const stats = await s.service.stats(ADMIN, {});
    assert.ok(
      stats.documents >= acks.length,
      `${stats.documents} documents stored, ${acks.length} acknowledged`,
    );
  } finally {
    await writer[Symbol.asyncDispose]();
  }
});

Deno.test("concurrent writes to one path from several processes become consecutive versions", async () => {
  await using dir = await tempDir();
  const dbFile = `${dir.path}/engram.db`;
  const PER_WRITER = 25;
  const WRITERS = 4;
  {
    // Created up front so every writer starts from the same, migrated file.
    using _ = await openService(dir.path);
  }
  const writers = Array.from(
    { length: WRITERS },
    (_, w) => new Writer(dbFile, "same-path", w, PER_WRITER),
  );
  try {
    await startTogether(writers);
    const acks = (await Promise.all(writers.map((w) => w.rest()))).flat();
    for (const w of writers) {
      const { code, stderr } = await w.finish();
      assert.equal(code, 0, `writer failed: ${stderr}`);
    }
    const total = WRITERS * PER_WRITER;
    assert.equal(acks.length, total);
    assert.equal(new Set(acks.map((a) => a.id)).size, 1, "one document");
    const versions = acks.map((a) => a.version).sort((a, b) => a - b);
    assert.deepEqual(versions, Array.from({ length: total }, (_, i) => i + 1));

    using s = await openService(dir.path);
    const id = acks[0].id;
    const current = await s.service.get(ADMIN, { id });
    assert.equal(current.version, total);
    for (const ack of acks) {
      const v = await s.service.get(ADMIN, { id, version: ack.version });
      assert.equal(v.content, ack.content, `version ${ack.version} holds what was acknowledged`);
    }
  } finally {
    await disposeAll(writers);
  }
});

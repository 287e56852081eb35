import assert from "node:assert/strict";
import { newId } from "../../src/core/ids.ts";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite_storage.ts";
import { runEngram, tempDir } from "../helpers.ts";
import { writeDoc } from "../storage/sqlite/_store.ts";
import { assertFails, assertOk, runJson } from "./_util.ts";

interface Doc {
  id: string;
  brain_id: string;
  path: string;
  title: string;
  version: number;
  updated_at: string;
  deleted_at: string | null;
  metadata: Record<string, unknown>;
  content?: string;
}

async function remember(dataDir: string, path: string, content: string, ...extra: string[]) {
  return await runJson<Doc>(["remember", "-", "--path", path, "--json", ...extra], {
    dataDir,
    stdin: content,
  });
}

Deno.test("get PATH prints a header (title, path, version, updated, tags) and the content", async () => {
  await using dir = await tempDir();
  await remember(dir.path, "/notes/a.md", "# Alpha\n\nfirst", "--tag", "x", "--tag", "y");
  const doc = await remember(dir.path, "/notes/a.md", "# Alpha\n\nsecond");
  const r = await runEngram(["get", "/notes/a.md"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(
    r.stdout,
    `# Alpha\n/notes/a.md · ${doc.id} · version 2 · updated ${doc.updated_at} · tags x, y\n\n` +
      "# Alpha\n\nsecond\n",
  );
});

Deno.test("get takes an id, or a path without its leading slash", async () => {
  await using dir = await tempDir();
  const doc = await remember(dir.path, "/notes/a.md", "# Alpha\n\nbody");
  for (const ref of [doc.id, "notes/a.md"]) {
    const got = await runJson<Doc>(["get", ref, "--json"], { dataDir: dir.path });
    assert.equal(got.id, doc.id, ref);
  }
});

Deno.test("get --json prints the document with its content, as memory_get does", async () => {
  await using dir = await tempDir();
  const doc = await remember(dir.path, "/a.md", "# A\n\nbody");
  const got = await runJson<Doc>(["get", "/a.md", "--json"], { dataDir: dir.path });
  const { content, provenance, ...record } = got as Doc & { provenance: unknown };
  assert.equal(content, "# A\n\nbody");
  assert.equal(provenance, null, "a note of the user's own: no provenance");
  assert.deepEqual(record, doc);
});

Deno.test("get --version N prints that version", async () => {
  await using dir = await tempDir();
  await remember(dir.path, "/a.md", "# A\n\none");
  await remember(dir.path, "/a.md", "# A\n\ntwo");
  const got = await runJson<Doc>(["get", "/a.md", "--version", "1", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(got.version, 1);
  assert.equal(got.content, "# A\n\none");
});

Deno.test("get --version that does not exist is not_found naming the available range", async () => {
  await using dir = await tempDir();
  await remember(dir.path, "/a.md", "# A\n\none");
  await remember(dir.path, "/a.md", "# A\n\ntwo");
  const r = await runEngram(["get", "/a.md", "--version", "7"], { dataDir: dir.path });
  assertFails(
    r,
    1,
    `not_found: document /a.md has no version 7 in brain "default"; its versions are 1..2`,
  );
});

Deno.test("get --version 0 or a word is a usage error", async () => {
  await using dir = await tempDir();
  assertFails(
    await runEngram(["get", "/a.md", "--version", "0"], { dataDir: dir.path }),
    2,
    "--version",
  );
  assertFails(
    await runEngram(["get", "/a.md", "--version", "two"], { dataDir: dir.path }),
    2,
    "--version",
  );
});

Deno.test("get of an unknown document is not_found naming it and engram list", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["get", "nope"], { dataDir: dir.path });
  assertFails(
    r,
    1,
    `not_found: no document with id or path "nope" in brain "default"; list its documents with: engram list --brain default`,
  );
  const p = await runEngram(["get", "/nope.md"], { dataDir: dir.path });
  assertFails(p, 1, `no document at path "/nope.md" in brain "default"`);
});

Deno.test("get --brain of an unknown brain is no_brain", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["get", "/a.md", "--brain", "nope"], { dataDir: dir.path });
  assertFails(r, 1, `no_brain: brain "nope" not found`);
});

Deno.test("list prints path, title, version and updated in path order", async () => {
  await using dir = await tempDir();
  const b = await remember(dir.path, "/notes/b.md", "# Bravo\n\nb");
  const a = await remember(dir.path, "/notes/a.md", "# Alpha\n\na");
  const r = await runEngram(["list"], { dataDir: dir.path });
  assertOk(r);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^PATH\s+TITLE\s+VERSION\s+UPDATED$/);
  assert.match(lines[1], new RegExp(`^/notes/a\\.md\\s+Alpha\\s+1\\s+${a.updated_at}$`));
  assert.match(lines[2], new RegExp(`^/notes/b\\.md\\s+Bravo\\s+1\\s+${b.updated_at}$`));
  assert.equal(lines.length, 3);
});

Deno.test("list --prefix keeps only paths under it; an empty listing says so", async () => {
  await using dir = await tempDir();
  await remember(dir.path, "/notes/a.md", "# A");
  await remember(dir.path, "/other/b.md", "# B");
  const { items } = await runJson<{ items: Doc[] }>(["list", "--prefix", "/notes/", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(items.map((d) => d.path), ["/notes/a.md"]);
  const none = await runEngram(["list", "--prefix", "/zzz/"], { dataDir: dir.path });
  assertOk(none);
  assert.equal(none.stdout, `no documents in brain "default" under /zzz/\n`);
});

Deno.test("list --prefix without a leading slash is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["list", "--prefix", "notes"], { dataDir: dir.path });
  assertFails(r, 2, "prefix must start with /");
});

Deno.test("list lists a brain of more documents than one page, each once", async () => {
  await using dir = await tempDir();
  const storage = openSqliteStorage(`${dir.path}/engram.db`);
  try {
    const brain = await storage.brains.createBrain({
      id: newId("brn"),
      slug: "default",
      name: "Default",
      visibility: "private",
    });
    await storage.units.withTransaction(async () => {
      for (let i = 0; i < 1201; i++) {
        await writeDoc(storage, brain.id, `/d/${String(i).padStart(4, "0")}.md`, [`body ${i}`]);
      }
    });
  } finally {
    storage.close();
  }
  const { items } = await runJson<{ items: Doc[] }>(["list", "--json"], { dataDir: dir.path });
  assert.equal(items.length, 1201);
  assert.equal(new Set(items.map((d) => d.path)).size, 1201);
  assert.equal(items[0].path, "/d/0000.md");
  assert.equal(items[1200].path, "/d/1200.md");
  const r = await runEngram(["list"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(r.stdout.trimEnd().split("\n").length, 1202);
});

Deno.test("forget PATH forgets the document, says which, and it leaves get and list", async () => {
  await using dir = await tempDir();
  const doc = await remember(dir.path, "/a.md", "# A\n\nbody");
  const r = await runEngram(["forget", "a.md"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(
    r.stdout,
    `forgot /a.md (id ${doc.id}, version 1) in brain default; remember the same path to restore it\n`,
  );
  assertFails(await runEngram(["get", "/a.md"], { dataDir: dir.path }), 1, "not_found");
  const { items } = await runJson<{ items: Doc[] }>(["list", "--json"], { dataDir: dir.path });
  assert.deepEqual(items, []);
  // Its versions are kept: remembering the path again restores it as a new version.
  const back = await remember(dir.path, "/a.md", "# A\n\nback");
  assert.equal(back.id, doc.id);
  assert.equal(back.version, 2);
});

Deno.test("forget ID --json prints the record with deleted_at set", async () => {
  await using dir = await tempDir();
  const doc = await remember(dir.path, "/a.md", "# A");
  const gone = await runJson<Doc>(["forget", doc.id, "--json"], { dataDir: dir.path });
  assert.equal(gone.id, doc.id);
  assert.notEqual(gone.deleted_at, null);
});

Deno.test("forget of an unknown or already forgotten document is not_found", async () => {
  await using dir = await tempDir();
  await remember(dir.path, "/a.md", "# A");
  assertOk(await runEngram(["forget", "/a.md"], { dataDir: dir.path }));
  const r = await runEngram(["forget", "/a.md"], { dataDir: dir.path });
  assertFails(
    r,
    1,
    `not_found: no document at path "/a.md" in brain "default"; list its documents with: engram list`,
  );
});

Deno.test("get, list and forget without their argument are usage errors pointing to --help", async () => {
  await using dir = await tempDir();
  assertFails(await runEngram(["get"], { dataDir: dir.path }), 2, "see: engram get --help");
  assertFails(await runEngram(["forget"], { dataDir: dir.path }), 2, "see: engram forget --help");
  assertFails(await runEngram(["list", "x"], { dataDir: dir.path }), 2, "see: engram list --help");
});

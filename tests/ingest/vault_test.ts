/** @module In-process tests of vault export and import (src/ingest/vault.ts) on real folders and SQLite files. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { EngramError } from "../../src/core/errors.ts";
import type { MemoryService } from "../../src/core/memory_service.ts";
import { exportVault, importVault } from "../../src/ingest/vault.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

/** The fixture vault (read-only; tests that change it work on a copy). */
const FIXTURE = fileURLToPath(new URL("../fixtures/vault", import.meta.url));

const NOTES = [
  "/Home.md",
  "/notes/Café ☕.md",
  "/projects/2024/q1/plan.md",
  "/projects/empty.md",
  "/projects/engram.md",
  "/日本/東京.md",
];

/** Copies a folder tree. */
async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

interface Snapshot {
  id: string;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  backlinks: string[];
}

/** Every live document of a brain by path, with its backlinks as sorted "path kind text" lines. */
async function snapshot(service: MemoryService, brain = "default"): Promise<Map<string, Snapshot>> {
  const resolved = await service.brain(ADMIN, brain);
  const out = new Map<string, Snapshot>();
  for await (const doc of service.liveDocuments(resolved)) {
    const { items } = await service.backlinks(ADMIN, { brain, id: doc.id });
    out.set(doc.path, {
      id: doc.id,
      title: doc.title,
      content: doc.content,
      metadata: doc.metadata,
      created_at: doc.created_at,
      updated_at: doc.updated_at,
      backlinks: items.map((b) => `${b.path} ${b.kind} ${b.text}`).sort(),
    });
  }
  return out;
}

/** A snapshot without ids (which differ when another brain of the database still holds them). */
function withoutIds(snap: Map<string, Snapshot>): Map<string, Omit<Snapshot, "id">> {
  return new Map([...snap].map(([path, { id: _id, ...rest }]) => [path, rest]));
}

Deno.test("import stores every .md at /<path in the vault>, skipping dot-folders and other files", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const summary = await importVault(s.service, ADMIN, { dir: FIXTURE });
  assert.deepEqual(
    { files: summary.files, imported: summary.imported, unchanged: summary.unchanged },
    { files: 6, imported: 6, unchanged: 0 },
  );
  assert.deepEqual(summary.failed, []);
  assert.equal(summary.brain_slug, "default");
  assert.deepEqual([...(await snapshot(s.service)).keys()].sort(), NOTES);
});

Deno.test("import takes title, tags (list and comma forms) and extra keys from front matter; content is the body", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  const docs = await snapshot(s.service);
  const home = docs.get("/Home.md")!;
  assert.equal(home.title, "Home", "no title key: the first heading");
  assert.deepEqual(home.metadata, {
    aliases: "Start,Index page",
    date: "2024-03-01",
    tags: "index,start",
  });
  assert.ok(home.content.startsWith("# Home\n\nWelcome"), JSON.stringify(home.content));
  const cafe = docs.get("/notes/Café ☕.md")!;
  assert.equal(cafe.title, "Café notes");
  assert.deepEqual(cafe.metadata, { rating: 5, tags: "coffee,food" });
  const tokyo = docs.get("/日本/東京.md")!;
  assert.equal(tokyo.title, "東京");
  assert.deepEqual(tokyo.metadata, {});
  assert.equal(
    tokyo.content,
    await Deno.readTextFile(`${FIXTURE}/日本/東京.md`),
    "a note without front matter is stored as is",
  );
});

Deno.test("import keeps front matter followed by a horizontal rule, and a numeric id as metadata", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  const doc = (await snapshot(s.service)).get("/projects/engram.md")!;
  assert.match(doc.id, /^doc_/, "a non-engram id is not used as the document id");
  assert.equal(doc.title, "engram");
  assert.deepEqual(doc.metadata, { id: "20240301", status: "active", tags: "project,memory" });
  assert.ok(doc.content.startsWith("---\n\nA horizontal rule"), JSON.stringify(doc.content));
});

Deno.test("import stores an empty-body note with its front matter, and front matter timestamps", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  const docs = await snapshot(s.service);
  const empty = docs.get("/projects/empty.md")!;
  assert.equal(empty.content, "");
  assert.equal(empty.title, "Empty placeholder");
  assert.deepEqual(empty.metadata, { priority: 2, tags: "todo" });
  const plan = docs.get("/projects/2024/q1/plan.md")!;
  assert.equal(plan.created_at, "2024-01-02T09:00:00.000Z");
  assert.equal(plan.updated_at, "2024-02-03T10:30:00.000Z");
  assert.equal(plan.metadata.tags, "plan", "the singular `tag` key");
});

Deno.test("a note without front matter or heading is titled by its file name", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await Deno.mkdir(`${dir.path}/vault/ideas`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/vault/ideas/Shower thoughts.md`, "just a line\n");
  await importVault(s.service, ADMIN, { dir: `${dir.path}/vault` });
  const doc = await s.service.get(ADMIN, { path: "/ideas/Shower thoughts.md" });
  assert.equal(doc.title, "Shower thoughts");
  assert.equal(doc.content, "just a line\n");
});

Deno.test("wiki links ([[note]], [[note|text]], [[folder/note]]) and relative links become backlinks", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  const docs = await snapshot(s.service);
  assert.deepEqual(docs.get("/Home.md")!.backlinks, [
    "/notes/Café ☕.md wiki Home",
    "/projects/engram.md wiki Home",
    "/日本/東京.md wiki Home",
  ]);
  assert.deepEqual(docs.get("/日本/東京.md")!.backlinks, [
    "/Home.md markdown Tokyo",
    "/Home.md wiki Tokyo trip",
    "/projects/2024/q1/plan.md wiki 東京",
  ]);
  assert.deepEqual(docs.get("/notes/Café ☕.md")!.backlinks, [
    "/Home.md wiki Café ☕",
    "/日本/東京.md wiki the café note",
  ]);
  assert.deepEqual(docs.get("/projects/engram.md")!.backlinks, [
    "/Home.md wiki the engram project",
    "/notes/Café ☕.md markdown plan",
    "/projects/2024/q1/plan.md wiki projects/engram",
  ]);
});

Deno.test("re-importing an unchanged vault creates no new versions", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  const before = await s.service.stats(ADMIN, {});
  const again = await importVault(s.service, ADMIN, { dir: FIXTURE });
  assert.deepEqual({ imported: again.imported, unchanged: again.unchanged }, {
    imported: 0,
    unchanged: 6,
  });
  assert.equal((await s.service.stats(ADMIN, {})).versions, before.versions);
});

Deno.test("re-importing an edited note makes one version and drops keys the file no longer has", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const vault = `${dir.path}/vault`;
  await copyDir(FIXTURE, vault);
  await importVault(s.service, ADMIN, { dir: vault });
  const first = await s.service.get(ADMIN, { path: "/notes/Café ☕.md" });
  await Deno.writeTextFile(
    `${vault}/notes/Café ☕.md`,
    "---\ntitle: Café notes\ntags: coffee\n---\n\nDecaf now.\n",
  );
  const summary = await importVault(s.service, ADMIN, { dir: vault });
  assert.deepEqual({ imported: summary.imported, unchanged: summary.unchanged }, {
    imported: 1,
    unchanged: 5,
  });
  const doc = await s.service.get(ADMIN, { path: "/notes/Café ☕.md" });
  assert.equal(doc.id, first.id);
  assert.equal(doc.version, 2);
  assert.equal(doc.content, "Decaf now.\n");
  assert.deepEqual(doc.metadata, { tags: "coffee" });
});

Deno.test("a binary or NUL-containing .md is listed in failed and the other notes are still imported", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const vault = `${dir.path}/vault`;
  await copyDir(FIXTURE, vault);
  await Deno.writeFile(`${vault}/broken.md`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x0a]));
  await Deno.writeTextFile(`${vault}/notes/nul.md`, "a\0b\n");
  const summary = await importVault(s.service, ADMIN, { dir: vault });
  assert.equal(summary.files, 8);
  assert.equal(summary.imported, 6);
  assert.deepEqual(summary.failed.map((f) => f.file), ["broken.md", "notes/nul.md"]);
  assert.match(summary.failed[0].error, /broken\.md is not UTF-8 text/);
  assert.match(summary.failed[1].error, /NUL/);
  assert.deepEqual([...(await snapshot(s.service)).keys()].sort(), NOTES);
});

Deno.test("import of a missing folder is not_found; of a file, invalid_argument", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await assert.rejects(
    importVault(s.service, ADMIN, { dir: `${dir.path}/nope` }),
    (e: unknown) => e instanceof EngramError && e.code === "not_found" && /nope/.test(e.message),
  );
  await Deno.writeTextFile(`${dir.path}/file.md`, "# x\n");
  await assert.rejects(
    importVault(s.service, ADMIN, { dir: `${dir.path}/file.md` }),
    (e: unknown) => e instanceof EngramError && e.code === "invalid_argument",
  );
});

Deno.test("round trip into another brain of the same database keeps paths, titles, contents, tags, metadata and backlinks", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  await s.service.remember(ADMIN, {
    content: "See [[Home]] and [cafe](../notes/Café%20☕.md).\n",
    title: "Extra",
    path: "/memory/global/extra.md",
    metadata: { mood: "ok", n: 1.5, flag: true, json: '{"a":[1,2]}' },
  });
  const a = await snapshot(s.service);
  const summary = await exportVault(s.service, ADMIN, { dir: `${dir.path}/vault` });
  assert.equal(summary.documents, 7);
  await s.service.createBrain({ name: "B", slug: "b", visibility: "private" });
  const imported = await importVault(s.service, ADMIN, { dir: `${dir.path}/vault`, brain: "b" });
  assert.deepEqual({ imported: imported.imported, failed: imported.failed }, {
    imported: 7,
    failed: [],
  });
  const b = await snapshot(s.service, "b");
  assert.deepEqual(withoutIds(b), withoutIds(a));
  for (const [path, doc] of b) {
    assert.notEqual(doc.id, a.get(path)!.id, "ids are unique database-wide");
  }
});

Deno.test("round trip into a fresh database keeps ids, created_at and updated_at exactly", async () => {
  await using dir = await tempDir();
  await using dir2 = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  await s.service.update(ADMIN, { path: "/Home.md", content: "# Home\n\nRewritten. [[東京]]\n" });
  const a = await snapshot(s.service);
  await exportVault(s.service, ADMIN, { dir: `${dir.path}/vault` });
  using fresh = await openService(dir2.path);
  const summary = await importVault(fresh.service, ADMIN, { dir: `${dir.path}/vault` });
  assert.deepEqual(summary.failed, []);
  assert.deepEqual(await snapshot(fresh.service), a);
});

Deno.test("importing an export back into the same brain creates no new versions", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await importVault(s.service, ADMIN, { dir: FIXTURE });
  const versions = (await s.service.stats(ADMIN, {})).versions;
  await exportVault(s.service, ADMIN, { dir: `${dir.path}/vault` });
  const summary = await importVault(s.service, ADMIN, { dir: `${dir.path}/vault` });
  assert.deepEqual({ imported: summary.imported, unchanged: summary.unchanged }, {
    imported: 0,
    unchanged: 6,
  });
  assert.equal((await s.service.stats(ADMIN, {})).versions, versions);
});

Deno.test("onProgress is called once per file with the running count and the total", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const seen: string[] = [];
  await importVault(s.service, ADMIN, {
    dir: FIXTURE,
    onProgress: (done, total, file) => seen.push(`${done}/${total} ${file}`),
  });
  assert.deepEqual(seen, NOTES.map((p, i) => `${i + 1}/6 ${p.slice(1)}`));
  const exported: string[] = [];
  await exportVault(s.service, ADMIN, {
    dir: `${dir.path}/out`,
    onProgress: (done, total) => exported.push(`${done}/${total}`),
  });
  assert.deepEqual(exported, ["1/6", "2/6", "3/6", "4/6", "5/6", "6/6"]);
});

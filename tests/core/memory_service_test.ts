import assert from "node:assert/strict";
import { EngramError, type ErrorCode } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import type { MemoryService } from "../../src/core/memory_service.ts";
import type { CallerContext, DocumentRecord } from "../../src/core/types.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

/** Asserts that `promise` rejects with an EngramError of `code` whose message matches. */
async function assertFails(promise: Promise<unknown>, code: ErrorCode, message?: RegExp | string) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected EngramError, got ${err}`);
    assert.equal(err.code, code, err.message);
    if (typeof message === "string") assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    return true;
  });
}

async function search(service: MemoryService, query: string, brain?: string) {
  const r = await service.search(ADMIN, {
    query,
    brain,
    top_k: 10,
    scope: "all",
    sort: "relevance",
  });
  return r.hits;
}

const RECORD_KEYS = [
  "brain_id",
  "byte_size",
  "checksum_sha256",
  "commit_sha",
  "content_type",
  "created_at",
  "deleted_at",
  "id",
  "metadata",
  "path",
  "source",
  "title",
  "updated_at",
  "version",
];

Deno.test("remember derives the title from the first heading and the path from the title", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const content = "Intro.\n\n# Running Plan 2024\n\nTuesday intervals. Café ☕";
  const doc = await s.service.remember(ADMIN, { content });
  const brain = await s.service.brain(ADMIN);
  assert.deepEqual(Object.keys(doc).sort(), RECORD_KEYS);
  assert.match(doc.id, /^doc_[0-9A-Z]{26}$/);
  assert.equal(doc.brain_id, brain.id);
  assert.equal(doc.title, "Running Plan 2024");
  assert.equal(doc.path, "/memory/global/running-plan-2024.md");
  assert.equal(doc.version, 1);
  assert.equal(doc.source, "ingest");
  assert.equal(doc.content_type, "text/markdown");
  assert.equal(doc.byte_size, new TextEncoder().encode(content).byteLength);
  assert.ok(doc.byte_size > content.length, "byte_size counts UTF-8 bytes");
  assert.equal(doc.checksum_sha256, sha256Hex(content));
  assert.match(doc.commit_sha, /^[0-9a-f]{7,64}$/);
  assert.deepEqual(doc.metadata, {});
  assert.equal(doc.deleted_at, null);
  assert.equal(doc.created_at, doc.updated_at);
  assert.ok(!Number.isNaN(Date.parse(doc.created_at)));
});

Deno.test("remember without a heading titles the note with its first line", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, { content: "- buy oat milk\n- eggs" });
  assert.equal(doc.title, "buy oat milk");
  assert.equal(doc.path, "/memory/global/buy-oat-milk.md");
});

Deno.test("remember keeps an explicit title, normalizes an explicit path and keeps the source", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Heading\nbody",
    title: "Chosen title",
    path: "memory/project/./plans//q3.md",
  }, { source: "extract" });
  assert.equal(doc.title, "Chosen title");
  assert.equal(doc.path, "/memory/project/plans/q3.md");
  assert.equal(doc.source, "extract");
  const got = await s.service.get(ADMIN, { path: "/memory/project/plans/q3.md" });
  assert.equal(got.id, doc.id);
});

Deno.test("remember rejects a path escaping the brain root", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await assertFails(
    s.service.remember(ADMIN, { content: "x", path: "../../etc/passwd" }),
    "invalid_argument",
    /escapes the brain root/,
  );
});

Deno.test("tags are stored as metadata.tags, comma-joined, trimmed and de-duplicated", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Tagged",
    tags: ["sport", " health ", "sport"],
    metadata: { mood: "good", stars: 4, done: false },
  });
  assert.deepEqual(doc.metadata, { mood: "good", stars: 4, done: false, tags: "sport,health" });
  const got = await s.service.get(ADMIN, { id: doc.id });
  assert.deepEqual(got.metadata, doc.metadata);
});

Deno.test("remembering the same path again creates version 2 with a new commit_sha", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const path = "/memory/global/plan.md";
  const v1 = await s.service.remember(ADMIN, { content: "# Plan\nfirst draft", path });
  const v2 = await s.service.remember(ADMIN, { content: "# Plan\nsecond draft", path });
  assert.equal(v2.id, v1.id);
  assert.equal(v2.version, 2);
  assert.notEqual(v2.commit_sha, v1.commit_sha);
  assert.notEqual(v2.checksum_sha256, v1.checksum_sha256);
  assert.equal(v2.created_at, v1.created_at);
  assert.ok(v2.updated_at >= v1.updated_at);
  assert.equal((await s.service.get(ADMIN, { path })).content, "# Plan\nsecond draft");
  const old = await s.service.get(ADMIN, { path, version: 1 });
  assert.equal(old.content, "# Plan\nfirst draft");
  assert.equal(old.commit_sha, v1.commit_sha);
  assert.equal(old.version, 1);
});

Deno.test("remembering identical content creates no new version", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const args = { content: "# Same\nunchanged body", tags: ["a"] };
  const first = await s.service.remember(ADMIN, args);
  const again = await s.service.remember(ADMIN, args);
  assert.deepEqual(again, first);
  // Tags omitted the second time keep the stored ones, so this is identical too.
  const third = await s.service.remember(ADMIN, { content: args.content });
  assert.deepEqual(third, first);
  const stats = await s.service.stats(ADMIN, {});
  assert.equal(stats.versions, 1);
  const timeline = await s.service.timeline(ADMIN, { limit: 20 });
  assert.equal(timeline.items.length, 1);
});

Deno.test("remembering identical content with different tags is a new version", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const first = await s.service.remember(ADMIN, { content: "# Note", tags: ["a"] });
  const second = await s.service.remember(ADMIN, { content: "# Note", tags: ["b"] });
  assert.equal(second.version, 2);
  assert.equal(second.metadata.tags, "b");
  assert.equal(second.checksum_sha256, first.checksum_sha256);
  assert.notEqual(second.commit_sha, first.commit_sha);
});

Deno.test("get finds a document by id, by path and at a past version", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const v1 = await s.service.remember(ADMIN, { content: "# Alpha\none", path: "/n/a.md" });
  await s.service.update(ADMIN, { id: v1.id, content: "# Alpha\ntwo", title: "Alpha two" });
  const byId = await s.service.get(ADMIN, { id: v1.id });
  const byPath = await s.service.get(ADMIN, { path: "n/./a.md" });
  assert.deepEqual(byPath, byId);
  assert.equal(byId.content, "# Alpha\ntwo");
  assert.equal(byId.title, "Alpha two");
  assert.equal(byId.version, 2);
  const old = await s.service.get(ADMIN, { id: v1.id, version: 1 });
  assert.equal(old.content, "# Alpha\none");
  assert.equal(old.title, "Alpha");
  assert.equal(old.commit_sha, v1.commit_sha);
  assert.equal(old.updated_at, v1.updated_at);
  await assertFails(
    s.service.get(ADMIN, { id: v1.id, version: 3 }),
    "not_found",
    new RegExp(
      `^document ${v1.path} has no version 3 in brain "default"; its versions are 1\\.\\.2$`,
    ),
  );
});

Deno.test("get of an unknown id or path is not_found naming what was asked for", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await assertFails(
    s.service.get(ADMIN, { id: "doc_NOPE" }),
    "not_found",
    /^document with id doc_NOPE not found in brain "default"; find documents with memory_search/,
  );
  await assertFails(
    s.service.get(ADMIN, { path: "/memory/global/missing.md" }),
    "not_found",
    /path \/memory\/global\/missing\.md not found/,
  );
});

Deno.test("update replaces content, title and tags and merges metadata, null removing a key", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Old\nold body",
    tags: ["x", "y"],
    metadata: { keep: "yes", drop: 1, change: "a" },
  });
  const updated = await s.service.update(ADMIN, {
    id: doc.id,
    content: "# Old\nnew body",
    title: "New title",
    tags: ["z"],
    metadata: { drop: null, change: "b", added: true },
  });
  assert.equal(updated.version, 2);
  assert.equal(updated.title, "New title");
  assert.equal(updated.path, doc.path, "a new title does not move the document");
  assert.deepEqual(updated.metadata, { keep: "yes", change: "b", tags: "z", added: true });
  const got = await s.service.get(ADMIN, { id: doc.id });
  assert.equal(got.content, "# Old\nnew body");
  assert.deepEqual(got.metadata, updated.metadata);
  const cleared = await s.service.update(ADMIN, { id: doc.id, tags: [] });
  assert.equal(cleared.metadata.tags, undefined, "an empty tag list removes the tags");
  assert.equal(cleared.version, 3);
});

Deno.test("update with new_path moves the document and frees the old path", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, { content: "# Mover\nbody", path: "/a/old.md" });
  const moved = await s.service.update(ADMIN, { path: "/a/old.md", new_path: "b/new.md" });
  assert.equal(moved.id, doc.id);
  assert.equal(moved.path, "/b/new.md");
  assert.equal(moved.version, 2);
  assert.equal((await s.service.get(ADMIN, { path: "/b/new.md" })).content, "# Mover\nbody");
  await assertFails(s.service.get(ADMIN, { path: "/a/old.md" }), "not_found");
  assert.equal((await s.service.get(ADMIN, { id: doc.id, version: 1 })).path, "/a/old.md");
  const hits = await search(s.service, "mover");
  assert.deepEqual(hits.map((h) => h.path), ["/b/new.md"]);
  // The old path can be used again by a new document.
  const fresh = await s.service.remember(ADMIN, { content: "# Fresh", path: "/a/old.md" });
  assert.notEqual(fresh.id, doc.id);
  assert.equal(fresh.version, 1);
});

Deno.test("moving a document onto an occupied path is a conflict and changes nothing", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const a = await s.service.remember(ADMIN, { content: "# A", path: "/x/a.md" });
  const b = await s.service.remember(ADMIN, { content: "# B", path: "/x/b.md" });
  await assertFails(
    s.service.update(ADMIN, { id: a.id, new_path: "/x/b.md" }),
    "conflict",
    `path /x/b.md is already used by document ${b.id}; choose another path`,
  );
  assert.equal((await s.service.get(ADMIN, { id: a.id })).path, "/x/a.md");
  assert.equal((await s.service.get(ADMIN, { id: a.id })).version, 1);
  await s.service.forget(ADMIN, { id: b.id });
  await assertFails(
    s.service.update(ADMIN, { id: a.id, new_path: "/x/b.md" }),
    "conflict",
    /\(forgotten\)/,
  );
});

Deno.test("an update that changes nothing creates no new version and returns the record", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Stable",
    tags: ["t"],
    metadata: { k: 1 },
  });
  const same = await s.service.update(ADMIN, {
    id: doc.id,
    content: "# Stable",
    title: "Stable",
    tags: ["t"],
    metadata: { k: 1 },
    new_path: doc.path,
  });
  assert.deepEqual(same, doc);
  assert.ok(!("content" in same), "the record does not carry the content");
  assert.equal((await s.service.stats(ADMIN, {})).versions, 1);
});

Deno.test("an update with nothing to change is invalid_argument", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, { content: "# N" });
  await assertFails(
    s.service.update(ADMIN, { id: doc.id }),
    "invalid_argument",
    /nothing to update/,
  );
});

Deno.test("updating an unknown or forgotten document is not_found", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await assertFails(s.service.update(ADMIN, { id: "doc_X", title: "t" }), "not_found", /doc_X/);
  const doc = await s.service.remember(ADMIN, { content: "# Gone" });
  await s.service.forget(ADMIN, { id: doc.id });
  await assertFails(s.service.update(ADMIN, { id: doc.id, title: "t" }), "not_found");
});

Deno.test("forget sets deleted_at and removes the document from get, search and tags", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Secret plan\nzeppelin rendezvous",
    tags: ["hidden"],
  });
  assert.equal((await search(s.service, "zeppelin")).length, 1);
  const forgotten = await s.service.forget(ADMIN, { path: doc.path });
  assert.equal(forgotten.id, doc.id);
  assert.ok(forgotten.deleted_at);
  assert.ok(!Number.isNaN(Date.parse(forgotten.deleted_at)));
  assert.equal(forgotten.version, 1, "forgetting is not a new version");
  assert.deepEqual(await search(s.service, "zeppelin"), []);
  assert.deepEqual(await search(s.service, "secret plan"), []);
  await assertFails(s.service.get(ADMIN, { id: doc.id }), "not_found");
  await assertFails(s.service.get(ADMIN, { id: doc.id, version: 1 }), "not_found");
  await assertFails(s.service.forget(ADMIN, { id: doc.id }), "not_found");
  assert.deepEqual((await s.service.tags(ADMIN, {})).items, []);
  const timeline = await s.service.timeline(ADMIN, { limit: 10 });
  assert.deepEqual(
    timeline.items.map((t) => [t.action, t.document_id, t.at]),
    [["deleted", doc.id, forgotten.deleted_at], ["created", doc.id, doc.created_at]],
  );
  const stats = await s.service.stats(ADMIN, {});
  assert.equal(stats.documents, 0);
  assert.equal(stats.deleted_documents, 1);
  assert.equal(stats.chunks, 0);
});

Deno.test("remembering a forgotten path restores the document as a new version", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const path = "/memory/global/phoenix.md";
  const doc = await s.service.remember(ADMIN, { content: "# Phoenix\nashes", path });
  await s.service.forget(ADMIN, { id: doc.id });
  const back = await s.service.remember(ADMIN, { content: "# Phoenix\nashes", path });
  assert.equal(back.id, doc.id);
  assert.equal(back.deleted_at, null);
  assert.equal(back.version, 2);
  assert.equal((await s.service.get(ADMIN, { path })).content, "# Phoenix\nashes");
  assert.deepEqual((await search(s.service, "ashes")).map((h) => h.document_id), [doc.id]);
  assert.equal((await s.service.stats(ADMIN, {})).deleted_documents, 0);
});

Deno.test("an unknown brain is no_brain with a hint to list brains", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const expected = 'brain "x" not found; list brains with: engram brains list';
  await assertFails(s.service.remember(ADMIN, { content: "hi", brain: "x" }), "no_brain", expected);
  await assertFails(
    s.service.search(ADMIN, {
      query: "hi",
      brain: "x",
      top_k: 1,
      scope: "all",
      sort: "relevance",
    }),
    "no_brain",
    expected,
  );
  await assertFails(s.service.stats(ADMIN, { brain: "x" }), "no_brain", expected);
});

Deno.test("a caller restricted to a brain list sees and touches only those brains", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const work = await s.service.createBrain({ name: "Work", visibility: "private" });
  await s.service.remember(ADMIN, { content: "# Default secret\nkumquat", path: "/d.md" });
  const worker: CallerContext = { ...ADMIN, tier: "write", brains: ["work"] };
  assert.deepEqual((await s.service.listBrains(worker)).map((b) => b.slug), ["work"]);
  assert.deepEqual(
    (await s.service.listBrains(ADMIN)).map((b) => b.slug),
    ["default", "work"],
  );
  // Without a brain, the first accessible brain is used.
  const doc = await s.service.remember(worker, { content: "# Work note\nkumquat" });
  assert.equal(doc.brain_id, work.id);
  // The other brain is reported exactly like a missing one.
  await assertFails(
    s.service.get(worker, { path: "/d.md", brain: "default" }),
    "no_brain",
    'brain "default" not found; list brains with: engram brains list',
  );
  const hits = (await s.service.search(worker, {
    query: "kumquat",
    top_k: 10,
    scope: "all",
    sort: "relevance",
  })).hits;
  assert.deepEqual(hits.map((h) => h.brain_id), [work.id]);
  // A brain may also be granted by id.
  const byId: CallerContext = { ...ADMIN, brains: [work.id] };
  assert.equal((await s.service.brain(byId, "work")).id, work.id);
  const nobody: CallerContext = { ...ADMIN, brains: [] };
  await assertFails(s.service.remember(nobody, { content: "x" }), "no_brain", /create one/);
});

Deno.test("the configured default brain is used when a call names none", async () => {
  await using dir = await tempDir();
  {
    using s = await openService(dir.path);
    await s.service.createBrain({ name: "Second", visibility: "private" });
  }
  using s = await openService(dir.path, { defaultBrain: "second" });
  const doc = await s.service.remember(ADMIN, { content: "# Where" });
  assert.equal(doc.brain_id, (await s.service.brain(ADMIN, "second")).id);
  using missing = await openService(dir.path, { defaultBrain: "nope" });
  await assertFails(missing.service.remember(ADMIN, { content: "x" }), "no_brain", /"nope"/);
});

Deno.test("createBrain generates a slug, rejects a taken slug and a name with no usable characters", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const brain = await s.service.createBrain({ name: "Café Research", visibility: "tenant" });
  assert.equal(brain.slug, "cafe-research");
  assert.equal(brain.name, "Café Research");
  assert.equal(brain.visibility, "tenant");
  assert.match(brain.id, /^brn_/);
  assert.deepEqual(await s.service.brain(ADMIN, "cafe-research"), brain);
  assert.deepEqual(await s.service.brain(ADMIN, brain.id), brain);
  await assertFails(
    s.service.createBrain({ name: "Cafe research", visibility: "private" }),
    "conflict",
    /slug "cafe-research" is already taken/,
  );
  const explicit = await s.service.createBrain({
    name: "東京",
    slug: "tokyo",
    visibility: "public",
  });
  assert.equal(explicit.slug, "tokyo");
  await assertFails(
    s.service.createBrain({ name: "東京 🎉", visibility: "private" }),
    "invalid_argument",
    /cannot derive a slug from name "東京 🎉"/,
  );
  assert.equal((await s.service.listBrains(ADMIN)).length, 3);
});

Deno.test("documents at the same path in two brains are separate", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.createBrain({ name: "Other", visibility: "private" });
  const a = await s.service.remember(ADMIN, { content: "# Mine\napple", path: "/same.md" });
  const b = await s.service.remember(ADMIN, {
    content: "# Theirs\nbanana",
    path: "/same.md",
    brain: "other",
  });
  assert.notEqual(a.id, b.id);
  assert.equal(b.version, 1);
  assert.equal((await s.service.get(ADMIN, { path: "/same.md" })).content, "# Mine\napple");
  await assertFails(s.service.get(ADMIN, { id: b.id }), "not_found");
  assert.deepEqual(await search(s.service, "banana"), []);
  assert.equal((await search(s.service, "banana", "other")).length, 1);
});

Deno.test("backlinks come from wiki links by title or file name and from relative markdown links", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const target = await s.service.remember(ADMIN, {
    content: "# Running Plan\nintervals",
    path: "/memory/global/run-plan.md",
  });
  const byTitle = await s.service.remember(ADMIN, {
    content: "# Diary\nFollowing [[running PLAN|the plan]].",
    path: "/memory/global/diary.md",
  });
  const byFile = await s.service.remember(ADMIN, {
    content: "# Index\nSee [[RUN-PLAN]].",
    path: "/memory/global/index.md",
  });
  const byMarkdown = await s.service.remember(ADMIN, {
    content: "# Project\nBased on [the plan](../global/run-plan.md#week-1).",
    path: "/memory/project/project.md",
  });
  const unrelated = await s.service.remember(ADMIN, {
    content: "# Other\n[[Something else]] and [x](run-plan.md) and `[[Running Plan]]`",
    path: "/memory/agent/other.md",
  });
  await s.service.remember(ADMIN, { content: "# Self\n[[Self]]", path: "/self.md" });
  const { document, items } = await s.service.backlinks(ADMIN, { id: target.id });
  assert.equal(document.id, target.id);
  assert.deepEqual(
    items.map((b) => [b.document_id, b.kind, b.text]).sort(),
    [
      [byTitle.id, "wiki", "the plan"],
      [byFile.id, "wiki", "RUN-PLAN"],
      [byMarkdown.id, "markdown", "the plan"],
    ].sort(),
  );
  assert.ok(!items.some((b) => b.document_id === unrelated.id));
  const diary = items.find((b) => b.document_id === byTitle.id)!;
  assert.equal(diary.path, "/memory/global/diary.md");
  assert.equal(diary.title, "Diary");
  const self = await s.service.backlinks(ADMIN, { path: "/self.md" });
  assert.deepEqual(self.items, [], "a document is not its own backlink");
});

Deno.test("forgotten documents and removed links are not backlinks", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const target = await s.service.remember(ADMIN, { content: "# Target", path: "/t.md" });
  const a = await s.service.remember(ADMIN, { content: "[[Target]]", path: "/a.md" });
  const b = await s.service.remember(ADMIN, { content: "[t](t.md)", path: "/b.md" });
  assert.equal((await s.service.backlinks(ADMIN, { id: target.id })).items.length, 2);
  await s.service.forget(ADMIN, { id: a.id });
  await s.service.update(ADMIN, { id: b.id, content: "no link any more" });
  assert.deepEqual((await s.service.backlinks(ADMIN, { id: target.id })).items, []);
  await s.service.forget(ADMIN, { id: target.id });
  await assertFails(s.service.backlinks(ADMIN, { id: target.id }), "not_found");
});

Deno.test("tags are counted over live documents, most used first", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# One", tags: ["sport", "health"] });
  const two = await s.service.remember(ADMIN, { content: "# Two", tags: ["sport", "food"] });
  await s.service.remember(ADMIN, { content: "# Three", tags: ["sport"] });
  const gone = await s.service.remember(ADMIN, { content: "# Four", tags: ["food", "zzz"] });
  assert.deepEqual((await s.service.tags(ADMIN, {})).items, [
    { tag: "sport", count: 3 },
    { tag: "food", count: 2 },
    { tag: "health", count: 1 },
    { tag: "zzz", count: 1 },
  ]);
  await s.service.forget(ADMIN, { id: gone.id });
  await s.service.update(ADMIN, { id: two.id, tags: ["health"] });
  const after = await s.service.tags(ADMIN, {});
  // Tags replace: "two" lost sport and food. Equal counts are ordered by name.
  assert.deepEqual(after.items, [{ tag: "health", count: 2 }, { tag: "sport", count: 2 }]);
  assert.equal(after.brain_id, (await s.service.brain(ADMIN)).id);
});

Deno.test("stats count live and forgotten documents, versions, chunks, bytes and tags", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const empty = await s.service.stats(ADMIN, {});
  assert.deepEqual(
    { ...empty, brain_id: "" },
    {
      brain_id: "",
      brain_slug: "default",
      documents: 0,
      deleted_documents: 0,
      versions: 0,
      chunks: 0,
      bytes: 0,
      tags: 0,
      last_updated_at: null,
    },
  );
  const long = "# Long\n\n" + Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ");
  const a = await s.service.remember(ADMIN, { content: long, tags: ["x", "y"] });
  await s.service.remember(ADMIN, { content: long + " more", path: a.path });
  const b = await s.service.remember(ADMIN, { content: "# Short\nbody ü", tags: ["y"] });
  const c = await s.service.remember(ADMIN, { content: "# Gone\nbye" });
  const forgotten = await s.service.forget(ADMIN, { id: c.id });
  const stats = await s.service.stats(ADMIN, {});
  const bytes = (t: string) => new TextEncoder().encode(t).byteLength;
  assert.equal(stats.documents, 2);
  assert.equal(stats.deleted_documents, 1);
  assert.equal(stats.versions, 4);
  assert.equal(stats.chunks, 2 + 1, "the long note has two windows, the short one one chunk");
  assert.equal(stats.bytes, bytes(long + " more") + bytes("# Short\nbody ü"));
  assert.equal(stats.tags, 2);
  assert.equal(stats.last_updated_at, forgotten.updated_at);
  assert.ok(stats.last_updated_at! >= b.updated_at);
});

Deno.test("the timeline lists creations, updates and deletions newest first", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const a = await s.service.remember(ADMIN, { content: "# A\none", path: "/a.md" });
  const a2 = await s.service.update(ADMIN, { id: a.id, content: "# A\ntwo" });
  const b = await s.service.remember(ADMIN, { content: "# B", path: "/b.md" });
  await s.service.forget(ADMIN, { id: a.id });
  const { items } = await s.service.timeline(ADMIN, { limit: 20 });
  assert.deepEqual(
    items.map((t) => [t.action, t.path, t.version]),
    [["deleted", "/a.md", 2], ["created", "/b.md", 1], ["updated", "/a.md", 2], [
      "created",
      "/a.md",
      1,
    ]],
  );
  assert.equal(items[2].commit_sha, a2.commit_sha);
  assert.equal(items[1].document_id, b.id);
  const limited = await s.service.timeline(ADMIN, { limit: 2 });
  assert.deepEqual(limited.items, items.slice(0, 2));
});

Deno.test("the timeline with since returns only changes at or after that time", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const old = await s.service.remember(ADMIN, { content: "# Old", path: "/old.md" });
  const recent = await s.service.remember(ADMIN, { content: "# Recent", path: "/recent.md" });
  // Backdate the first note's version so the cut-off does not depend on the clock.
  s.storage.connection.db.prepare(
    "UPDATE document_versions SET created_at = ? WHERE document_id = ?",
  ).run(
    "2020-01-01T00:00:00.000Z",
    old.id,
  );
  const all = await s.service.timeline(ADMIN, { limit: 20 });
  assert.deepEqual(all.items.map((t) => t.path), ["/recent.md", "/old.md"]);
  // The same instant in another offset: 2021-01-01T00:00Z.
  const since = await s.service.timeline(ADMIN, { limit: 20, since: "2021-01-01T02:00:00+02:00" });
  assert.deepEqual(since.items.map((t) => t.document_id), [recent.id]);
  const exact = await s.service.timeline(ADMIN, { limit: 20, since: recent.created_at });
  assert.ok(exact.items.some((t) => t.document_id === recent.id), "since is inclusive");
  const future = await s.service.timeline(ADMIN, { limit: 20, since: "2999-01-01T00:00:00Z" });
  assert.deepEqual(future.items, []);
});

Deno.test("reindex rebuilds chunks for live documents and search works after it", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const long = "# Long\n\n" + Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ") + " quasar";
  await s.service.remember(ADMIN, { content: long });
  await s.service.remember(ADMIN, { content: "# Pulsar notes\n[[Long]]", path: "/p.md" });
  const gone = await s.service.remember(ADMIN, { content: "# Gone\nnebula" });
  await s.service.forget(ADMIN, { id: gone.id });
  // Damage the index: every chunk and link is lost.
  s.storage.connection.db.exec("DELETE FROM chunks; DELETE FROM links;");
  assert.deepEqual(await search(s.service, "quasar"), []);
  const result = await s.service.reindex(ADMIN, {});
  assert.equal(result.documents, 2);
  assert.equal(result.chunks, 3);
  assert.equal(result.brain_id, (await s.service.brain(ADMIN)).id);
  assert.ok(Number.isInteger(result.took_ms) && result.took_ms >= 0);
  assert.equal((await search(s.service, "quasar"))[0].title, "Long");
  assert.equal((await search(s.service, "pulsar"))[0].path, "/p.md");
  assert.deepEqual(await search(s.service, "nebula"), [], "forgotten documents stay out");
  const long1 = (await search(s.service, "quasar"))[0].document_id;
  const back = await s.service.backlinks(ADMIN, { id: long1 });
  assert.deepEqual(back.items.map((b) => b.path), ["/p.md"], "links are rebuilt too");
  assert.equal((await s.service.stats(ADMIN, {})).versions, 3, "reindex makes no versions");
});

Deno.test("search hits carry the document record fields and tags as metadata", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc: DocumentRecord = await s.service.remember(ADMIN, {
    content: "# Garden\n\n## Tomatoes\nWater the tomatoes daily.",
    tags: ["home"],
  });
  const [hit] = await search(s.service, "tomatoes");
  assert.equal(hit.document_id, doc.id);
  assert.equal(hit.path, doc.path);
  assert.equal(hit.title, "Garden");
  assert.equal(hit.brain_id, doc.brain_id);
  assert.deepEqual(hit.metadata, { tags: "home" });
  assert.deepEqual(hit.heading_path, ["Garden", "Tomatoes"]);
  assert.equal(hit.content, "Water the tomatoes daily.");
  assert.match(hit.chunk_id, /^chk_/);
});

Deno.test("wiki links with a folder or a slash in the title find their target", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const ab = await s.service.remember(ADMIN, {
    content: "# A/B testing\nsplit traffic",
    path: "/notes/ab.md",
  });
  const deep = await s.service.remember(ADMIN, {
    content: "# Deep\nx",
    path: "/memory/project/api/design.md",
  });
  await s.service.remember(ADMIN, {
    content: "See [[A/B testing]] and [[api/design]] and [[Memory/Project/API/Design.md]].",
    path: "/notes/source.md",
  });
  await s.service.remember(ADMIN, {
    content: "Unrelated [[other/design]].",
    path: "/notes/other.md",
  });
  const toAb = await s.service.backlinks(ADMIN, { id: ab.id });
  assert.deepEqual(toAb.items.map((b) => b.path), ["/notes/source.md"]);
  const toDeep = await s.service.backlinks(ADMIN, { id: deep.id });
  assert.deepEqual(toDeep.items.map((b) => [b.path, b.text]), [
    ["/notes/source.md", "api/design"],
    ["/notes/source.md", "Memory/Project/API/Design.md"],
  ]);
});

Deno.test("a note that starts with a code block takes its title from the first text line", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, { content: "```sh\nnpm install\n```\n" });
  assert.equal(doc.title, "npm install");
});

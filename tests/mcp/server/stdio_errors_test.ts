import assert from "node:assert/strict";
import { callErr, callOk, connectStdio, tempDir } from "../../helpers.ts";

Deno.test("stdio: every bad input gets its error code and a message that names the fix", async (t) => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });

  await t.step("unknown brain → no_brain naming the brain and how to list brains", async () => {
    const e = await callErr(s.client, "memory_search", { query: "x", brain: "nope" });
    assert.equal(e.code, "no_brain");
    assert.equal(e.message, 'brain "nope" not found; list brains with: engram brains list');
    assert.equal(e.text, `no_brain: ${e.message}`);
  });
  await t.step("content over 5,000,000 characters → invalid_argument, nothing stored", async () => {
    const e = await callErr(s.client, "memory_remember", {
      content: "a".repeat(5_000_001),
      path: "/big.md",
    });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /content: Too big: expected string to have <=5000000 characters/);
    const missing = await callErr(s.client, "memory_get", { path: "/big.md" });
    assert.equal(missing.code, "not_found");
  });
  await t.step("content of exactly 5,000,000 characters is accepted", async () => {
    const doc = await callOk<{ byte_size: number }>(s.client, "memory_remember", {
      content: "word ".repeat(1_000_000),
      path: "/limit.md",
    });
    assert.equal(doc.byte_size, 5_000_000);
  });
  await t.step("title over 512 characters → invalid_argument naming title", async () => {
    const e = await callErr(s.client, "memory_remember", { content: "x", title: "t".repeat(513) });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /^invalid arguments for memory_remember: title: /);
  });
  await t.step("path with NUL → invalid_argument", async () => {
    const e = await callErr(s.client, "memory_remember", { content: "x", path: "/a\u0000b.md" });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /path: path must not contain NUL/);
  });
  await t.step("path over 1024 characters → invalid_argument", async () => {
    const e = await callErr(s.client, "memory_remember", {
      content: "x",
      path: "/" + "p".repeat(1024),
    });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /path: Too big/);
  });
  await t.step("path escaping the root with .. → invalid_argument", async () => {
    const e = await callErr(s.client, "memory_remember", {
      content: "x",
      path: "/../../etc/passwd",
    });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /escapes the brain root/);
  });
  await t.step("more than 64 tags → invalid_argument", async () => {
    const tags = Array.from({ length: 65 }, (_, i) => `t${i}`);
    const e = await callErr(s.client, "memory_remember", { content: "x", tags });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /tags: Too big: expected array to have <=64 items/);
  });
  await t.step("a tag with a comma → invalid_argument (tags are stored comma-joined)", async () => {
    const e = await callErr(s.client, "memory_remember", { content: "x", tags: ["a,b"] });
    assert.equal(e.code, "invalid_argument");
    assert.match(e.message, /tags cannot contain commas/);
  });
  await t.step("unknown document → not_found naming it", async () => {
    const e = await callErr(s.client, "memory_get", { id: "doc_missing" });
    assert.equal(e.code, "not_found");
    assert.match(e.message, /document with id doc_missing not found in brain "default"/);
    const byPath = await callErr(s.client, "memory_forget", { path: "/memory/global/none.md" });
    assert.equal(byPath.code, "not_found");
  });
  await t.step("neither or both of id and path → invalid_argument", async () => {
    const none = await callErr(s.client, "memory_get", {});
    assert.equal(none.code, "invalid_argument");
    assert.match(none.message, /give exactly one of id or path/);
    const both = await callErr(s.client, "memory_backlinks", { id: "doc_x", path: "/x.md" });
    assert.equal(both.code, "invalid_argument");
  });
  await t.step(
    "wrong types and out-of-range numbers → invalid_argument before the handler runs",
    async () => {
      const e = await callErr(s.client, "memory_search", {
        query: "x",
        top_k: 0,
        scope: "everything",
      });
      assert.equal(e.code, "invalid_argument");
      assert.match(e.message, /top_k: Too small/);
      assert.match(e.message, /scope: Invalid option/);
      const empty = await callErr(s.client, "memory_search", { query: "" });
      assert.match(empty.message, /query: Too small/);
      const long = await callErr(s.client, "memory_search", { query: "q".repeat(4097) });
      assert.match(long.message, /query: Too big/);
    },
  );
  await t.step("a write-tier session may not create brains → forbidden", async () => {
    const e = await callErr(s.client, "memory_create_brain", { name: "Team" });
    assert.equal(e.code, "forbidden");
    assert.match(e.message, /needs tier admin; this session runs at tier write/);
  });
  await t.step("an unknown tool is a protocol error, not a crash", async () => {
    await assert.rejects(
      () => s.client.callTool({ name: "memory_nope", arguments: {} }),
      /unknown tool "memory_nope"/,
    );
  });
});

Deno.test("stdio admin: brains are created, listed and used by slug; slug rule enforced", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "admin"] });
  const brain = await callOk<{ slug: string; id: string; visibility: string }>(
    s.client,
    "memory_create_brain",
    {
      name: "Work Notes",
      visibility: "tenant",
    },
  );
  assert.equal(brain.slug, "work-notes");
  assert.equal(brain.visibility, "tenant");
  const bad = await callErr(s.client, "memory_create_brain", { name: "x", slug: "Bad_Slug" });
  assert.equal(bad.code, "invalid_argument");
  assert.match(bad.message, /slug must match \^\[a-z0-9\]\[a-z0-9-\]\*\$/);
  const dup = await callErr(s.client, "memory_create_brain", { name: "again", slug: "work-notes" });
  assert.equal(dup.code, "conflict");

  const { items } = await callOk<{ items: { slug: string }[] }>(s.client, "memory_list_brains");
  assert.deepEqual(items.map((b) => b.slug), ["default", "work-notes"]);

  await callOk(s.client, "memory_remember", {
    content: "# Quarterly plan\nship engram",
    brain: "work-notes",
  });
  await callOk(s.client, "memory_remember", { content: "# Grocery list\nmilk", brain: brain.id });
  const inWork = await callOk<{ hits: unknown[] }>(s.client, "memory_search", {
    query: "engram",
    brain: "work-notes",
  });
  assert.equal(inWork.hits.length, 1);
  const inDefault = await callOk<{ hits: unknown[] }>(s.client, "memory_search", {
    query: "engram",
  });
  assert.equal(inDefault.hits.length, 0, "brains are isolated");
  const stats = await callOk<{ documents: number; brain_slug: string }>(s.client, "memory_stats", {
    brain: "work-notes",
  });
  assert.equal(stats.documents, 2);
  const reindexed = await callOk<{ documents: number; chunks: number }>(
    s.client,
    "memory_reindex",
    {
      brain: "work-notes",
    },
  );
  assert.deepEqual([reindexed.documents, reindexed.chunks], [2, 2]);
});

Deno.test("stdio --brain sets the default brain; an unknown --brain fails at start-up", async () => {
  await using dir = await tempDir();
  {
    await using admin = await connectStdio(dir.path, { args: ["--tier", "admin"] });
    await callOk(admin.client, "memory_create_brain", { name: "Project X", slug: "project-x" });
  }
  await using s = await connectStdio(dir.path, {
    args: ["--tier", "write", "--brain", "project-x"],
  });
  const doc = await callOk<{ brain_id: string }>(s.client, "memory_remember", {
    content: "# In X\nhello",
  });
  const { items } = await callOk<{ items: { slug: string; id: string }[] }>(
    s.client,
    "memory_list_brains",
  );
  assert.equal(doc.brain_id, items.find((b) => b.slug === "project-x")!.id);
  await assert.rejects(() => connectStdio(dir.path, { args: ["--brain", "missing"] }));
});

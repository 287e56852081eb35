/**
 * @module The exported front matter layout (src/core/markdown/front_matter.ts via vault.ts): user
 * keys flat where Obsidian's Properties view shows them, engram's own under `engram:`, and the old
 * nested `metadata:` layout still imported.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { readFrontMatter, writeFrontMatter } from "../../src/core/markdown/front_matter.ts";
import { exportVault, importVault } from "../../src/ingest/vault.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

/** A vault as export wrote it before: top-level id and timestamps, user keys under `metadata:`. */
const OLD_LAYOUT = fileURLToPath(new URL("../fixtures/vault_old_layout", import.meta.url));

/** Every file of a folder tree by relative path. */
async function readTree(root: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(`${root}${rel}`)) {
    const path = `${rel}/${e.name}`;
    if (e.isDirectory) { for (const [k, v] of await readTree(root, path)) out.set(k, v); }
    else out.set(path, await Deno.readTextFile(`${root}${path}`));
  }
  return out;
}

Deno.test("user keys named like a reserved top-level key go under engram.metadata and come back as they were", () => {
  const metadata = {
    title: "a user key called title",
    id: "Z-42",
    created_at: "yesterday",
    engram: "cool",
    metadata: "meta",
    tag: "x",
    rating: 4,
    "2024": "a number-like key",
    when: "2024-03-01",
    zip: "01234",
  };
  const front = {
    id: "doc_abc",
    title: "Real title",
    tags: ["a", "b"],
    created_at: "2024-01-01T00:00:00.000Z",
    updated_at: "2024-01-02T00:00:00.000Z",
    metadata: { ...metadata, source_hash: "h" },
  };
  const text = writeFrontMatter(front);
  const yaml = parse(text.replace(/^---\n|---\n$/g, ""));
  assert.equal(yaml.title, "Real title");
  assert.deepEqual(yaml.tags, ["a", "b"], "tags are a YAML list, as Obsidian expects");
  assert.equal(yaml.rating, 4);
  assert.equal(yaml.when, "2024-03-01");
  assert.deepEqual(yaml.engram, {
    id: "doc_abc",
    created_at: "2024-01-01T00:00:00.000Z",
    updated_at: "2024-01-02T00:00:00.000Z",
    source_hash: "h",
    metadata: {
      title: "a user key called title",
      id: "Z-42",
      created_at: "yesterday",
      engram: "cool",
      metadata: "meta",
      tag: "x",
    },
  });
  for (const k of ["id", "created_at", "updated_at", "metadata", "tag", "source_hash"]) {
    assert.ok(!(k in yaml), `${k} is not at the top level`);
  }
  const back = readFrontMatter(`${text}\nbody`);
  assert.deepEqual(back.front, front);
  assert.equal(back.body, "body");
});

Deno.test("a hand-written `engram:` that is not a map is an ordinary user key", () => {
  const { front } = readFrontMatter("---\nengram: yes please\nid: 7\n---\nbody");
  assert.deepEqual(front?.metadata, { engram: "yes please" });
  assert.equal(front?.id, "7");
});

Deno.test("export → import into a fresh database → export gives identical files", async () => {
  await using dir = await tempDir();
  await using dir2 = await tempDir();
  {
    using s = await openService(dir.path);
    await s.service.remember(ADMIN, {
      content: "# Running\n\nIntervals on Tuesday.\n",
      tags: ["sport", "health"],
      path: "/notes/running.md",
      metadata: {
        rating: 4,
        done: false,
        title: "collides",
        engram: "collides too",
        source_hash: "abc",
        source_url: "https://example.com/x",
        "café ☕": "ünïcode",
        zip: "01234",
      },
    });
    await s.service.remember(ADMIN, { content: "plain", path: "/plain.md" });
    await exportVault(s.service, ADMIN, { dir: `${dir.path}/a` });
  }
  using s2 = await openService(dir2.path);
  const imported = await importVault(s2.service, ADMIN, { dir: `${dir.path}/a` });
  assert.deepEqual([imported.imported, imported.failed], [2, []]);
  await exportVault(s2.service, ADMIN, { dir: `${dir.path}/b` });
  const a = await readTree(`${dir.path}/a`);
  assert.deepEqual(await readTree(`${dir.path}/b`), a);
  assert.match(a.get("/notes/running.md")!, /^---\ntitle: Running\ntags:\n/);
  const again = await importVault(s2.service, ADMIN, { dir: `${dir.path}/b` });
  assert.deepEqual([again.imported, again.unchanged], [0, 2], "re-import makes no versions");
});

Deno.test("import still reads the old layout (user keys under metadata:), and exports it in the new one", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const summary = await importVault(s.service, ADMIN, { dir: OLD_LAYOUT });
  assert.deepEqual([summary.imported, summary.failed], [1, []]);
  const doc = await s.service.get(ADMIN, { path: "/notes/running.md" });
  assert.equal(doc.id, "doc_01HQOLDLAYOUTFIXTURE0001");
  assert.equal(doc.title, "Running plan");
  assert.equal(doc.created_at, "2024-03-01T08:00:00.000Z");
  assert.equal(doc.updated_at, "2024-03-02T09:30:00.000Z");
  assert.deepEqual(doc.metadata, {
    tags: "sport,health",
    source_hash: "9f2c1e",
    rating: 4,
    done: false,
    source_format: "markdown",
  });
  assert.equal(doc.content, "# Running plan\n\nIntervals on Tuesday, a long run on Sunday.\n");
  await exportVault(s.service, ADMIN, { dir: `${dir.path}/out` });
  assert.equal(
    await Deno.readTextFile(`${dir.path}/out/notes/running.md`),
    [
      "---",
      "title: Running plan",
      "tags:",
      "  - sport",
      "  - health",
      "rating: 4",
      "done: false",
      "source_format: markdown",
      "engram:",
      "  id: doc_01HQOLDLAYOUTFIXTURE0001",
      "  created_at: 2024-03-01T08:00:00.000Z",
      "  updated_at: 2024-03-02T09:30:00.000Z",
      "  source_hash: 9f2c1e",
      "---",
      "",
      "# Running plan",
      "",
      "Intervals on Tuesday, a long run on Sunday.",
      "",
    ].join("\n"),
  );
  const again = await importVault(s.service, ADMIN, { dir: `${dir.path}/out` });
  assert.deepEqual([again.imported, again.unchanged], [0, 1], "the new layout reads the same");
});

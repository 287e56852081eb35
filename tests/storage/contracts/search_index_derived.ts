/**
 * @module The SearchIndex contract, continued: what the index holds beside ranked search —
 * re-chunking, chunk counts, backlinks and tags, all over live documents only.
 */
import assert from "node:assert/strict";
import {
  type ContractBackend,
  newBrain,
  searchQuery,
  uid,
  withBrain,
  writeDoc,
} from "./backend.ts";

const T = (day: number) => `2030-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;

/** Registers the re-chunking, backlink and tag cases for `backend` (part of searchIndexContract). */
export function indexDerivedCases(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} SearchIndex: ${name}`, fn);

  test("replaceIndex replaces a document's chunks and links without a new version", async () => {
    await using f = await withBrain(backend);
    const target = await writeDoc(f.storage.documents, f.brain.id, "/target.md", ["t"]);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["heron", "egret"], {
      links: [{ kind: "markdown", target_path: "/target.md", target_key: null, text: "see" }],
    });
    assert.equal(await f.storage.search.chunkCount(doc.id), 2);
    await f.storage.search.replaceIndex(doc.id, [
      { ordinal: 0, heading_path: ["New"], body: "pelican", start_offset: 0, end_offset: 7 },
    ], []);
    assert.equal(await f.storage.search.chunkCount(doc.id), 1);
    assert.deepEqual(await f.storage.search.search(searchQuery(f.brain.id, "heron")), []);
    const [hit] = await f.storage.search.search(searchQuery(f.brain.id, "pelican"));
    assert.equal(hit.document_id, doc.id);
    assert.deepEqual(hit.heading_path, ["New"]);
    assert.deepEqual(await f.storage.search.backlinks(f.brain.id, target), [], "links replaced");
    assert.deepEqual(await f.storage.documents.findDocument(f.brain.id, { id: doc.id }), doc);
    assert.equal((await f.storage.documents.timeline(f.brain.id, { limit: 10 })).length, 2);
  });

  test("replaceIndex never brings a forgotten document back into search", async () => {
    await using f = await withBrain(backend);
    // A reindex read the document while it was live; it was forgotten before the re-chunk landed.
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/secret.md", ["okapi secret"]);
    await f.storage.documents.markDeleted(f.brain.id, doc.id, T(2));
    await f.storage.search.replaceIndex(doc.id, [
      { ordinal: 0, heading_path: [], body: "okapi secret", start_offset: 0, end_offset: 12 },
    ], []);
    for (const sort of ["relevance", "recency"] as const) {
      assert.deepEqual(
        await f.storage.search.search(searchQuery(f.brain.id, "okapi", { sort })),
        [],
        `${sort}: a forgotten document is not searchable`,
      );
      assert.deepEqual(
        await f.storage.search.search(searchQuery(f.brain.id, "okapi", { sort, scope: "project" })),
        [],
      );
    }
  });

  test("chunkCount counts a document's indexed chunks; 0 for an unknown document", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["1", "2", "3"]);
    assert.equal(await f.storage.search.chunkCount(doc.id), 3);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["1"]);
    assert.equal(await f.storage.search.chunkCount(doc.id), 1);
    assert.equal(await f.storage.search.chunkCount("doc_unknown"), 0);
  });

  test("backlinks lists live documents linking by path, title or file name", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    const target = await writeDoc(docs, f.brain.id, "/notes/plan-2025.md", ["plan"], {
      title: "Launch Plan",
    });
    const link = (kind: "wiki" | "markdown", to: string, text: string) =>
      kind === "markdown"
        ? { kind, target_path: to, target_key: null, text }
        : { kind, target_path: null, target_key: to, text };
    const byPath = await writeDoc(docs, f.brain.id, "/a.md", ["a"], {
      links: [link("markdown", "/notes/plan-2025.md", "the plan")],
    });
    const byTitle = await writeDoc(docs, f.brain.id, "/b.md", ["b"], {
      links: [link("wiki", "launch plan", "Launch Plan")],
    });
    const byName = await writeDoc(docs, f.brain.id, "/c.md", ["c"], {
      links: [link("wiki", "plan-2025", "plan-2025")],
    });
    const gone = await writeDoc(docs, f.brain.id, "/gone.md", ["g"], {
      links: [link("wiki", "launch plan", "x")],
    });
    await docs.markDeleted(f.brain.id, gone.id, T(2));
    await writeDoc(docs, f.brain.id, "/d.md", ["d"], {
      links: [link("markdown", "/notes/other.md", "elsewhere"), link("wiki", "plan", "plan")],
    });
    await writeDoc(docs, other.id, "/e.md", ["e"], {
      links: [link("markdown", "/notes/plan-2025.md", "other brain")],
    });
    const found = await f.storage.search.backlinks(f.brain.id, target);
    const byId = new Map(found.map((b) => [b.document_id, b]));
    assert.equal(found.length, 3, JSON.stringify(found));
    assert.deepEqual(byId.get(byPath.id), {
      document_id: byPath.id,
      path: "/a.md",
      title: "a.md",
      kind: "markdown",
      text: "the plan",
    });
    assert.equal(byId.get(byTitle.id)?.kind, "wiki");
    assert.equal(byId.get(byTitle.id)?.text, "Launch Plan");
    assert.equal(byId.get(byName.id)?.path, "/c.md");
  });

  test("tags counts live documents per tag, most used first", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    await writeDoc(docs, f.brain.id, "/a.md", ["a"], { metadata: { tags: "x,y,w" } });
    await writeDoc(docs, f.brain.id, "/b.md", ["b"], { metadata: { tags: "x, y" } });
    await writeDoc(docs, f.brain.id, "/c.md", ["c"], { metadata: { tags: "x" } });
    const gone = await writeDoc(docs, f.brain.id, "/gone.md", ["g"], {
      metadata: { tags: "w,z" },
    });
    await docs.markDeleted(f.brain.id, gone.id, T(2));
    await writeDoc(docs, other.id, "/o.md", ["o"], { metadata: { tags: "x,o" } });
    assert.deepEqual(await f.storage.search.tags(f.brain.id), [
      { tag: "x", count: 3 },
      { tag: "y", count: 2 },
      { tag: "w", count: 1 },
    ]);
    // A new version replaces the document's tags.
    await writeDoc(docs, f.brain.id, "/a.md", ["a"], { metadata: { tags: "y" } });
    const tied = await f.storage.search.tags(f.brain.id);
    assert.deepEqual(tied.sort((p, q) => p.tag.localeCompare(q.tag)), [
      { tag: "x", count: 2 },
      { tag: "y", count: 2 },
    ]);
    assert.deepEqual(await f.storage.search.tags(uid("brn")), []);
  });
}

/**
 * @module The DocumentStore contract, continued: listings of live documents by prefix, path and
 * age, the timeline, and brain statistics.
 */
import assert from "node:assert/strict";
import type { DocumentRecord } from "../../../src/core/types.ts";
import { collect, type ContractBackend, newBrain, withBrain, writeDoc } from "./backend.ts";

const T = (day: number, hour = 0) =>
  `2030-01-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00.000Z`;

const paths = (docs: DocumentRecord[]) => docs.map((d) => d.path);

/** Registers the DocumentStore listing cases for `backend` (part of documentStoreContract). */
export function documentListingCases(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} DocumentStore: ${name}`, fn);

  test("listDocuments: live documents under a prefix, oldest first", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    // Written out of path order and out of time order: only created_at orders them.
    await writeDoc(docs, f.brain.id, "/facts/b.md", ["b"], { at: T(2) });
    await writeDoc(docs, f.brain.id, "/facts/a.md", ["a"], { at: T(3) });
    await writeDoc(docs, f.brain.id, "/facts/c.md", ["c"], { at: T(1) });
    const gone = await writeDoc(docs, f.brain.id, "/facts/gone.md", ["g"], { at: T(1, 5) });
    await writeDoc(docs, f.brain.id, "/factsheet.md", ["not under /facts/"], { at: T(1) });
    await writeDoc(docs, f.brain.id, "/notes/x.md", ["x"], { at: T(1) });
    await writeDoc(docs, other.id, "/facts/elsewhere.md", ["e"], { at: T(1) });
    await docs.markDeleted(f.brain.id, gone.id, T(4));
    // A new version keeps the document's place: it was created first.
    await writeDoc(docs, f.brain.id, "/facts/c.md", ["c2"], { at: T(9) });

    const listed = await docs.listDocuments(f.brain.id, { prefix: "/facts/" });
    assert.deepEqual(paths(listed), ["/facts/c.md", "/facts/b.md", "/facts/a.md"]);
    assert.deepEqual(listed[0], await docs.findDocument(f.brain.id, { path: "/facts/c.md" }));
    assert.equal(listed[0].version, 2);
    assert.equal((await docs.listDocuments(f.brain.id, { prefix: "" })).length, 5);
    assert.deepEqual(await docs.listDocuments(f.brain.id, { prefix: "/nothing/" }), []);
  });

  test("a prefix is literal text: % and _ are not wildcards", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    await writeDoc(docs, f.brain.id, "/100%/a_b.md", ["1"], { at: T(1) });
    await writeDoc(docs, f.brain.id, "/100x/a.md", ["2"], { at: T(2) });
    await writeDoc(docs, f.brain.id, "/100%/aXb.md", ["3"], { at: T(3) });
    const listed = async (prefix: string) =>
      paths(await docs.listDocuments(f.brain.id, { prefix })).sort();
    const paged = async (prefix: string) =>
      paths(await docs.documentPage(f.brain.id, { prefix, limit: 10 })).sort();
    for (const list of [listed, paged]) {
      assert.deepEqual(await list("/100%/"), ["/100%/aXb.md", "/100%/a_b.md"]);
      assert.deepEqual(await list("/100%/a_"), ["/100%/a_b.md"]);
      assert.deepEqual(await list("/1%"), []);
      assert.deepEqual(await list("/100_"), []);
    }
  });

  test("documentPage pages through live documents in path order with after and limit", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    for (const [i, name] of ["d", "b", "e", "a", "c"].entries()) {
      await writeDoc(docs, f.brain.id, `/p/${name}.md`, [name], { at: T(1, i) });
    }
    const gone = await writeDoc(docs, f.brain.id, "/p/bb.md", ["bb"], { at: T(2) });
    await docs.markDeleted(f.brain.id, gone.id, T(3));
    await writeDoc(docs, f.brain.id, "/q/a.md", ["elsewhere"], { at: T(2) });
    await writeDoc(docs, other.id, "/p/aa.md", ["other brain"], { at: T(2) });

    const page = async (after?: string) =>
      paths(await docs.documentPage(f.brain.id, { prefix: "/p/", after, limit: 2 }));
    assert.deepEqual(await page(), ["/p/a.md", "/p/b.md"]);
    assert.deepEqual(await page("/p/b.md"), ["/p/c.md", "/p/d.md"]);
    assert.deepEqual(await page("/p/d.md"), ["/p/e.md"]);
    assert.deepEqual(await page("/p/e.md"), []);
    assert.deepEqual(await page("/p/bb.md"), ["/p/c.md", "/p/d.md"], "after need not exist");
    assert.deepEqual(
      paths(await docs.documentPage(f.brain.id, { prefix: "", limit: 100 })),
      ["/p/a.md", "/p/b.md", "/p/c.md", "/p/d.md", "/p/e.md", "/q/a.md"],
    );
  });

  test("liveDocuments yields the current content of live documents of the brain only", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    await writeDoc(docs, f.brain.id, "/a.md", ["a one"], { at: T(1) });
    await writeDoc(docs, f.brain.id, "/a.md", ["a two"], { at: T(4) });
    const gone = await writeDoc(docs, f.brain.id, "/gone.md", ["g"], { at: T(2) });
    await docs.markDeleted(f.brain.id, gone.id, T(3));
    await writeDoc(docs, f.brain.id, "/b.md", ["b"], { at: T(3) });
    await writeDoc(docs, other.id, "/o.md", ["o"], { at: T(1) });
    const live = await collect(docs.liveDocuments(f.brain.id));
    assert.deepEqual(live.map((d) => [d.path, d.version, d.content]), [
      ["/a.md", 2, "a two"],
      ["/b.md", 1, "b"],
    ]);
    for (const d of live) {
      assert.deepEqual(await docs.readDocument(f.brain.id, { id: d.id }), d);
    }
  });

  test("liveDocuments is oldest first by created_at, like listDocuments", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    // An import keeps the created_at of its notes, so write order is not age order.
    await writeDoc(docs, f.brain.id, "/young.md", ["y"], { at: T(3) });
    await writeDoc(docs, f.brain.id, "/old.md", ["o"], { at: T(1) });
    await writeDoc(docs, f.brain.id, "/middle.md", ["m"], { at: T(2) });
    const listed = paths(await docs.listDocuments(f.brain.id, { prefix: "" }));
    assert.deepEqual(listed, ["/old.md", "/middle.md", "/young.md"]);
    assert.deepEqual((await collect(docs.liveDocuments(f.brain.id))).map((d) => d.path), listed);
  });

  test("timeline lists versions and forgettings newest first, with since and limit", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    const a = await writeDoc(docs, f.brain.id, "/a.md", ["a"], { at: T(1), title: "A" });
    const b = await writeDoc(docs, f.brain.id, "/b.md", ["b"], { at: T(2), title: "B" });
    await writeDoc(docs, f.brain.id, "/a.md", ["a2"], { at: T(3), title: "A2" });
    await docs.markDeleted(f.brain.id, b.id, T(4));
    await writeDoc(docs, other.id, "/o.md", ["o"], { at: T(5) });

    const all = await docs.timeline(f.brain.id, { limit: 100 });
    assert.deepEqual(all.map((e) => [e.path, e.action, e.version, e.at]), [
      ["/b.md", "deleted", 1, T(4)],
      ["/a.md", "updated", 2, T(3)],
      ["/b.md", "created", 1, T(2)],
      ["/a.md", "created", 1, T(1)],
    ]);
    assert.deepEqual(all[1], {
      document_id: a.id,
      path: "/a.md",
      title: "A2",
      version: 2,
      commit_sha: a.commit_sha,
      action: "updated",
      at: T(3),
    });
    assert.equal(all[3].title, "A", "each entry has its version's title");
    assert.deepEqual(
      (await docs.timeline(f.brain.id, { limit: 100, since: T(2) })).map((e) => e.at),
      [T(4), T(3), T(2)],
    );
    assert.deepEqual(
      (await docs.timeline(f.brain.id, { limit: 2 })).map((e) => e.at),
      [T(4), T(3)],
    );
    assert.deepEqual(await docs.timeline(f.brain.id, { limit: 10, since: T(6) }), []);
  });

  test("timeline keeps every forgetting, also of a document written again since", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    const a = await writeDoc(docs, f.brain.id, "/a.md", ["a"], { at: T(1) });
    await docs.markDeleted(f.brain.id, a.id, T(2));
    await writeDoc(docs, f.brain.id, "/a.md", ["a again"], { at: T(3) });
    await docs.markDeleted(f.brain.id, a.id, T(4));
    await writeDoc(docs, f.brain.id, "/a.md", ["a once more"], { at: T(5) });
    const entries = await docs.timeline(f.brain.id, { limit: 100 });
    assert.deepEqual(entries.map((e) => [e.action, e.version, e.at]), [
      ["updated", 3, T(5)],
      ["deleted", 2, T(4)],
      ["updated", 2, T(3)],
      ["deleted", 1, T(2)],
      ["created", 1, T(1)],
    ]);
    assert.ok(entries.every((e) => e.document_id === a.id && e.path === "/a.md"));
  });

  test("stats counts live and forgotten documents, versions, chunks, bytes and tags", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    assert.deepEqual(await docs.stats(f.brain.id), {
      brain_id: f.brain.id,
      documents: 0,
      deleted_documents: 0,
      versions: 0,
      chunks: 0,
      bytes: 0,
      tags: 0,
      last_updated_at: null,
    });
    await writeDoc(docs, f.brain.id, "/a.md", ["aaaa"], { at: T(1) });
    const a = await writeDoc(docs, f.brain.id, "/a.md", ["aaaa", "bb"], {
      at: T(2),
      metadata: { tags: "x, y" },
    });
    const gone = await writeDoc(docs, f.brain.id, "/gone.md", ["gone", "gone"], {
      at: T(1),
      metadata: { tags: "z" },
    });
    await docs.markDeleted(f.brain.id, gone.id, T(3));
    const c = await writeDoc(docs, f.brain.id, "/c.md", ["c"], {
      at: T(4),
      metadata: { tags: "x" },
    });
    await writeDoc(docs, other.id, "/o.md", ["other brain"], {
      at: T(9),
      metadata: { tags: "o" },
    });
    assert.deepEqual(await docs.stats(f.brain.id), {
      brain_id: f.brain.id,
      documents: 2,
      deleted_documents: 1,
      versions: 4,
      chunks: 3,
      bytes: a.byte_size + c.byte_size,
      tags: 2,
      last_updated_at: T(4),
    });
  });
}

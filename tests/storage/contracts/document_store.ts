/**
 * @module The DocumentStore contract: versions with optimistic checks, soft deletion, listings by
 * prefix, path and time, brain statistics, and provenance (document_provenance.ts).
 */
import assert from "node:assert/strict";
import type { DocumentRecord } from "../../../src/core/types.ts";
import { documentListingCases } from "./document_listings.ts";
import { documentProvenanceCases } from "./document_provenance.ts";
import {
  collect,
  type ContractBackend,
  newBrain,
  rejectsWith,
  searchQuery,
  uid,
  withBrain,
  writeDoc,
} from "./backend.ts";

const T = (day: number, hour = 0) =>
  `2030-01-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00.000Z`;

const paths = (docs: DocumentRecord[]) => docs.map((d) => d.path);

/** Registers the DocumentStore cases for `backend`. */
export function documentStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} DocumentStore: ${name}`, fn);

  test("writeVersion creates version 1, found by id and by path, with its content", async () => {
    await using f = await withBrain(backend);
    const id = uid("doc");
    const doc = {
      id,
      brain_id: f.brain.id,
      title: "Kayak",
      path: "/notes/kayak.md",
      source: "extract" as const,
      content_type: "text/markdown",
      byte_size: 11,
      checksum_sha256: "a".repeat(64),
      metadata: { tags: "boats", rating: 5, fresh: true, none: null },
      commit_sha: "b".repeat(40),
      created_at: T(2),
      updated_at: T(2),
      deleted_at: null,
    };
    const written = await f.storage.documents.writeVersion({
      document: doc,
      content: "kayak trips",
      chunks: [{
        ordinal: 0,
        heading_path: [],
        body: "kayak trips",
        start_offset: 0,
        end_offset: 11,
      }],
      links: [],
    });
    assert.deepEqual(written, { ...doc, version: 1 });
    assert.deepEqual(await f.storage.documents.findDocument(f.brain.id, { id }), written);
    assert.deepEqual(
      await f.storage.documents.findDocument(f.brain.id, { path: "/notes/kayak.md" }),
      written,
    );
    assert.deepEqual(await f.storage.documents.readDocument(f.brain.id, { id }), {
      ...written,
      content: "kayak trips",
    });
    assert.equal(await f.storage.documents.findDocument(f.brain.id, { path: "/nope.md" }), null);
    assert.equal(await f.storage.documents.readDocument(f.brain.id, { id: "doc_nope" }), null);
  });

  test("writeVersion at the expected version adds one; every older version stays readable", async () => {
    await using f = await withBrain(backend);
    const v1 = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["first text"], {
      at: T(1),
      title: "First",
      metadata: { k: "one" },
    });
    const v2 = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["second", "text"], {
      at: T(2),
      title: "Second",
      metadata: { k: "two" },
    });
    assert.equal(v2.id, v1.id);
    assert.equal(v2.version, 2);
    assert.equal(v2.created_at, T(1), "created_at stays");
    assert.equal(v2.updated_at, T(2));
    assert.deepEqual(await f.storage.documents.findDocument(f.brain.id, { id: v1.id }), v2);
    const old = await f.storage.documents.readDocument(f.brain.id, { id: v1.id }, 1);
    assert.ok(old);
    assert.equal(old.version, 1);
    assert.equal(old.content, "first text");
    assert.equal(old.title, "First");
    assert.deepEqual(old.metadata, { k: "one" });
    const current = await f.storage.documents.readDocument(f.brain.id, { path: "/a.md" });
    assert.equal(current?.version, 2);
    assert.equal(current?.content, "second\n\ntext");
    assert.deepEqual(await f.storage.documents.readDocument(f.brain.id, { id: v1.id }, 2), current);
    assert.equal(await f.storage.documents.readDocument(f.brain.id, { id: v1.id }, 3), null);
  });

  test("a version may move the document: old versions keep their path, the old path is free", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    const v1 = await writeDoc(docs, f.brain.id, "/old.md", ["text"], { at: T(1) });
    const moved = await docs.writeVersion({
      document: { ...v1, path: "/new.md", updated_at: T(2) },
      content: "text",
      chunks: [{ ordinal: 0, heading_path: [], body: "text", start_offset: 0, end_offset: 4 }],
      links: [],
      expectedVersion: 1,
    });
    assert.equal(moved.path, "/new.md");
    assert.equal(moved.version, 2);
    assert.equal(await docs.findDocument(f.brain.id, { path: "/old.md" }), null);
    assert.equal((await docs.findDocument(f.brain.id, { path: "/new.md" }))?.id, v1.id);
    assert.equal((await docs.readDocument(f.brain.id, { id: v1.id }, 1))?.path, "/old.md");
    const taker = await writeDoc(docs, f.brain.id, "/old.md", ["another"], { at: T(3) });
    assert.notEqual(taker.id, v1.id);
    assert.equal(taker.version, 1);
  });

  test("concurrent writes from the same version: exactly one wins, the others are stale", async () => {
    await using f = await withBrain(backend);
    const v1 = await writeDoc(f.storage.documents, f.brain.id, "/race.md", ["v1"]);
    const results = await Promise.allSettled(
      ["a", "b", "c", "d"].map((who) =>
        f.storage.documents.writeVersion({
          document: { ...v1, title: who },
          content: who,
          chunks: [{ ordinal: 0, heading_path: [], body: who, start_offset: 0, end_offset: 1 }],
          links: [],
          expectedVersion: 1,
        })
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
    for (const r of results) {
      if (r.status === "rejected") {
        await rejectsWith(Promise.reject(r.reason), "conflict", { cause: "stale-version" });
      }
    }
    const current = await f.storage.documents.readDocument(f.brain.id, { id: v1.id });
    assert.equal(current?.version, 2);
    assert.equal(current?.title, (won[0] as PromiseFulfilledResult<DocumentRecord>).value.title);
    assert.equal(await f.storage.documents.readDocument(f.brain.id, { id: v1.id }, 3), null);
  });

  Deno.test({
    name:
      `${backend.name} DocumentStore: a version whose index write fails midway is not stored at all`,
    ignore: backend.failChunkInserts === undefined,
    async fn() {
      await using f = await withBrain(backend);
      await backend.failChunkInserts!(f.storage, "BOOM");
      const docs = f.storage.documents;
      const kept = await writeDoc(docs, f.brain.id, "/kept.md", ["fine"], { at: T(1) });
      await assert.rejects(writeDoc(docs, f.brain.id, "/new.md", ["fine", "BOOM"]));
      assert.equal(await docs.findDocument(f.brain.id, { path: "/new.md" }), null);
      await assert.rejects(writeDoc(docs, f.brain.id, "/kept.md", ["changed", "BOOM"]));
      const current = await docs.readDocument(f.brain.id, { id: kept.id });
      assert.equal(current?.version, 1);
      assert.equal(current?.content, "fine");
      assert.equal(await f.storage.search.chunkCount(kept.id), 1);
      assert.deepEqual((await docs.stats(f.brain.id)).versions, 1);
    },
  });
  if (backend.failChunkInserts === undefined) {
    console.log(
      `${backend.name}: skipping the failing-write DocumentStore case: the backend offers no failChunkInserts`,
    );
  }

  test("writeVersion refuses a stale or missing expectedVersion with conflict stale-version", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["one"]);
    const v2 = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["two"]);
    const write = (expectedVersion: number | undefined, id = v2.id) =>
      f.storage.documents.writeVersion({
        document: { ...v2, id, updated_at: T(9) },
        content: "lost",
        chunks: [{ ordinal: 0, heading_path: [], body: "lost", start_offset: 0, end_offset: 4 }],
        links: [],
        expectedVersion,
      });
    await rejectsWith(write(1), "conflict", { cause: "stale-version" });
    await rejectsWith(write(3), "conflict", { cause: "stale-version" });
    await rejectsWith(write(undefined), "conflict", { cause: "stale-version" });
    const current = await f.storage.documents.readDocument(f.brain.id, { id: v2.id });
    assert.equal(current?.version, 2);
    assert.equal(current?.content, "two");
    assert.equal(await f.storage.documents.readDocument(f.brain.id, { id: v2.id }, 3), null);
    // A new document written as if it existed is stale too, and is not created.
    const fresh = uid("doc");
    await rejectsWith(
      f.storage.documents.writeVersion({
        document: { ...v2, id: fresh, path: "/fresh.md" },
        content: "x",
        chunks: [],
        links: [],
        expectedVersion: 1,
      }),
      "conflict",
      { cause: "stale-version" },
    );
    assert.equal(await f.storage.documents.documentIdTaken(fresh), false);
  });

  test("writeVersion refuses a path another document holds, even a forgotten one", async () => {
    await using f = await withBrain(backend);
    const a = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["a"]);
    const gone = await writeDoc(f.storage.documents, f.brain.id, "/gone.md", ["g"]);
    await f.storage.documents.markDeleted(f.brain.id, gone.id, T(3));
    const b = await writeDoc(f.storage.documents, f.brain.id, "/b.md", ["b"]);
    for (const taken of ["/a.md", "/gone.md"]) {
      await rejectsWith(
        f.storage.documents.writeVersion({
          document: { ...b, path: taken },
          content: "b",
          chunks: [],
          links: [],
          expectedVersion: 1,
        }),
        "conflict",
        { cause: "stale-version" },
      );
    }
    // A new document at a taken path is refused the same way.
    const fresh = uid("doc");
    await rejectsWith(
      f.storage.documents.writeVersion({
        document: { ...b, id: fresh, path: "/a.md" },
        content: "x",
        chunks: [],
        links: [],
      }),
      "conflict",
      { cause: "stale-version" },
    );
    assert.equal(await f.storage.documents.documentIdTaken(fresh), false);
    assert.deepEqual(await f.storage.documents.findDocument(f.brain.id, { path: "/a.md" }), a);
    assert.equal((await f.storage.documents.findDocument(f.brain.id, { id: b.id }))?.path, "/b.md");
  });

  test("writeVersion with an id another brain's document has never touches that document", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const theirs = await writeDoc(f.storage.documents, other.id, "/theirs.md", ["theirs"]);
    await assert.rejects(
      writeDoc(f.storage.documents, f.brain.id, "/mine.md", ["mine"], { id: theirs.id }),
    );
    assert.deepEqual(await f.storage.documents.findDocument(other.id, { id: theirs.id }), theirs);
    assert.equal(
      (await f.storage.documents.readDocument(other.id, { id: theirs.id }))?.content,
      "theirs",
    );
    assert.equal(await f.storage.documents.findDocument(f.brain.id, { path: "/mine.md" }), null);
  });

  test("the same path in two brains is two documents", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const mine = await writeDoc(f.storage.documents, f.brain.id, "/same.md", ["mine"]);
    const theirs = await writeDoc(f.storage.documents, other.id, "/same.md", ["theirs"]);
    assert.notEqual(mine.id, theirs.id);
    assert.equal(
      (await f.storage.documents.readDocument(other.id, { path: "/same.md" }))?.content,
      "theirs",
    );
    assert.equal(await f.storage.documents.findDocument(other.id, { id: mine.id }), null);
    assert.equal(await f.storage.documents.readDocument(other.id, { id: mine.id }), null);
  });

  test("markDeleted forgets a document: still found with deleted_at, gone from listings and search", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/f/gone.md", ["quokka"], {
      metadata: { tags: "marsupial" },
      at: T(1),
    });
    await writeDoc(f.storage.documents, f.brain.id, "/f/kept.md", ["kept"], { at: T(1) });
    const forgotten = await f.storage.documents.markDeleted(f.brain.id, doc.id, T(2));
    assert.equal(forgotten.id, doc.id);
    assert.equal(forgotten.deleted_at, T(2));
    assert.equal(forgotten.version, 1);
    assert.deepEqual(await f.storage.documents.findDocument(f.brain.id, { id: doc.id }), forgotten);
    const read = await f.storage.documents.readDocument(f.brain.id, { path: "/f/gone.md" });
    assert.equal(read?.deleted_at, T(2));
    assert.equal(read?.content, "quokka", "its versions stay");
    assert.deepEqual(
      paths(await f.storage.documents.listDocuments(f.brain.id, { prefix: "/f/" })),
      ["/f/kept.md"],
    );
    assert.deepEqual(
      paths(await f.storage.documents.documentPage(f.brain.id, { prefix: "/f/", limit: 10 })),
      ["/f/kept.md"],
    );
    assert.deepEqual(
      (await collect(f.storage.documents.liveDocuments(f.brain.id))).map((d) => d.path),
      ["/f/kept.md"],
    );
    assert.equal(await f.storage.search.chunkCount(doc.id), 0);
    assert.deepEqual(
      await f.storage.search.search(searchQuery(f.brain.id, "quokka")),
      [],
    );
    assert.deepEqual(await f.storage.search.tags(f.brain.id), []);
    assert.equal(await f.storage.documents.documentIdTaken(doc.id), true, "the id stays taken");
  });

  test("markDeleted of a missing, already forgotten or other brain's document is not_found", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["a"]);
    await rejectsWith(
      f.storage.documents.markDeleted(f.brain.id, "doc_missing", T(2)),
      "not_found",
    );
    await rejectsWith(f.storage.documents.markDeleted(other.id, doc.id, T(2)), "not_found");
    assert.equal(
      (await f.storage.documents.findDocument(f.brain.id, { id: doc.id }))?.deleted_at,
      null,
      "the wrong brain's call changed nothing",
    );
    await f.storage.documents.markDeleted(f.brain.id, doc.id, T(2));
    await rejectsWith(f.storage.documents.markDeleted(f.brain.id, doc.id, T(3)), "not_found");
    assert.equal(
      (await f.storage.documents.findDocument(f.brain.id, { id: doc.id }))?.deleted_at,
      T(2),
      "forgetting again keeps the first time",
    );
  });

  test("a forgotten document written again comes back as its next version", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["old wombat"], {
      at: T(1),
    });
    await f.storage.documents.markDeleted(f.brain.id, doc.id, T(2));
    const back = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["new wombat"], {
      at: T(3),
    });
    assert.equal(back.id, doc.id);
    assert.equal(back.version, 2);
    assert.equal(back.deleted_at, null);
    assert.equal(
      (await f.storage.documents.findDocument(f.brain.id, { id: doc.id }))?.deleted_at,
      null,
    );
    assert.deepEqual(
      paths(await f.storage.documents.listDocuments(f.brain.id, { prefix: "/" })),
      ["/a.md"],
    );
    assert.equal(await f.storage.search.chunkCount(doc.id), 1);
  });

  test("documentIdTaken sees ids in every brain, forgotten ones included", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const doc = await writeDoc(f.storage.documents, other.id, "/a.md", ["a"]);
    assert.equal(await f.storage.documents.documentIdTaken(doc.id), true);
    await f.storage.documents.markDeleted(other.id, doc.id, T(2));
    assert.equal(await f.storage.documents.documentIdTaken(doc.id), true);
    assert.equal(await f.storage.documents.documentIdTaken("doc_never"), false);
  });

  documentListingCases(backend);
  documentProvenanceCases(backend);
}

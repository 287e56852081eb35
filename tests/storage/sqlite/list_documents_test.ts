import assert from "node:assert/strict";
import { prefixEnd } from "../../../src/storage/sqlite/sqlite_path_listing.ts";
import { openStore, otherBrain, writeDoc } from "./_store.ts";

Deno.test("listDocuments: live documents under a prefix, oldest first", async () => {
  await using s = await openStore();
  const other = await otherBrain(s.storage);
  // Written out of path order with explicit times, so only created_at can order them.
  await writeDoc(s.storage, s.brain.id, "/facts/b.md", ["b"], { at: "2025-01-02T00:00:00.000Z" });
  await writeDoc(s.storage, s.brain.id, "/facts/a.md", ["a"], { at: "2025-01-03T00:00:00.000Z" });
  await writeDoc(s.storage, s.brain.id, "/facts/c.md", ["c"], { at: "2025-01-01T00:00:00.000Z" });
  const gone = await writeDoc(s.storage, s.brain.id, "/facts/gone.md", ["g"]);
  await writeDoc(s.storage, s.brain.id, "/factsheet.md", ["not under /facts/"]);
  await writeDoc(s.storage, s.brain.id, "/notes/x.md", ["x"]);
  await writeDoc(s.storage, other.id, "/facts/elsewhere.md", ["e"]);
  await s.storage.documents.markDeleted(s.brain.id, gone.id, new Date().toISOString());
  // A new version keeps the document's place: it was created first.
  await writeDoc(s.storage, s.brain.id, "/facts/c.md", ["c2"], { at: "2025-01-09T00:00:00.000Z" });

  const docs = await s.storage.documents.listDocuments(s.brain.id, { prefix: "/facts/" });
  assert.deepEqual(docs.map((d) => d.path), ["/facts/c.md", "/facts/b.md", "/facts/a.md"]);
  assert.equal(docs[0].version, 2);
  assert.equal(docs[0].deleted_at, null);
  assert.deepEqual(
    docs[0],
    await s.storage.documents.findDocument(s.brain.id, { path: "/facts/c.md" }),
  );
  assert.equal((await s.storage.documents.listDocuments(s.brain.id, { prefix: "" })).length, 5);
  assert.deepEqual(
    await s.storage.documents.listDocuments(s.brain.id, { prefix: "/nothing/" }),
    [],
  );
});

Deno.test("listDocuments: % and _ in a prefix are plain characters", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/100%/a_b.md", ["1"]);
  await writeDoc(s.storage, s.brain.id, "/100x/a.md", ["2"]);
  await writeDoc(s.storage, s.brain.id, "/100%/aXb.md", ["3"]);
  const paths = async (prefix: string) =>
    (await s.storage.documents.listDocuments(s.brain.id, { prefix })).map((d) => d.path);
  assert.deepEqual(await paths("/100%/"), ["/100%/a_b.md", "/100%/aXb.md"]);
  assert.deepEqual(await paths("/100%/a_"), ["/100%/a_b.md"]);
  assert.deepEqual(await paths("/1%"), []);
});

Deno.test("prefixEnd: the least string above everything starting with the prefix", () => {
  assert.equal(prefixEnd("/facts/"), "/facts0");
  assert.equal(prefixEnd(""), null);
  assert.equal(prefixEnd("a\u{10FFFF}"), "b");
  assert.equal(prefixEnd("\u{10FFFF}"), null);
  assert.equal(prefixEnd("x\u{D7FF}"), "x\u{E000}", "skips the surrogates");
  assert.equal(prefixEnd("é"), "ê");
  assert.equal(prefixEnd("a😀"), "a😁", "whole code points, not UTF-16 halves");
});

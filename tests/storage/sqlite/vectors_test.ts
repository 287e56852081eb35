import assert from "node:assert/strict";
import type { Scope } from "../../../src/core/limits.ts";
import type { SearchHit } from "../../../src/core/types.ts";
import type { SqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { openStore, otherBrain, writeDoc } from "./_store.ts";

const MODEL = "test-embed";
const v = (...xs: number[]) => new Float32Array(xs);

function search(
  storage: SqliteStorage,
  brainId: string,
  vector: Float32Array,
  options: { scope?: Scope; topK?: number; model?: string } = {},
): Promise<SearchHit[]> {
  return storage.vectors.vectorSearch({
    brainId,
    vector,
    model: options.model ?? MODEL,
    topK: options.topK ?? 10,
    scope: options.scope ?? "all",
  });
}

function vectorRows(storage: SqliteStorage): number {
  return (storage.connection.db.prepare("SELECT count(*) AS n FROM chunk_vectors").get() as {
    n: number;
  }).n;
}

Deno.test("vectors: chunksOf lists a document's chunk bodies in order", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/a.md", ["first", "second", "third"], {
    headings: ["Title"],
  });
  const chunks = await s.storage.vectors.chunksOf(doc.id);
  assert.deepEqual(chunks.map((c) => c.text), ["first", "second", "third"]);
  assert.equal(new Set(chunks.map((c) => c.id)).size, 3);
  assert.deepEqual(await s.storage.vectors.chunksOf("doc_missing"), []);
});

Deno.test("vectors: search ranks by cosine similarity and hits look like full-text hits", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/notes/a.md", ["east", "north", "northeast"], {
    headings: ["Compass", "Points"],
  });
  const [east, north, ne] = await s.storage.vectors.chunksOf(doc.id);
  await s.storage.vectors.putVectors(MODEL, [
    { chunk_id: east.id, vector: v(1, 0) },
    { chunk_id: north.id, vector: v(0, 2) },
    { chunk_id: ne.id, vector: v(3, 3) },
  ]);
  const hits = await search(s.storage, s.brain.id, v(0, 1));
  assert.deepEqual(hits.map((h) => h.content), ["north", "northeast", "east"]);
  assert.equal(hits[0].score, 1);
  assert.ok(Math.abs(hits[1].score - Math.SQRT1_2) < 1e-6, String(hits[1].score));
  assert.equal(hits[2].score, 0);
  assert.deepEqual(hits[0], {
    score: 1,
    path: "/notes/a.md",
    content: "north",
    document_id: doc.id,
    chunk_id: north.id,
    title: doc.title,
    brain_id: s.brain.id,
    metadata: {},
    highlights: [],
    heading_path: ["Compass", "Points"],
    updated_at: doc.updated_at,
  });
  assert.deepEqual((await search(s.storage, s.brain.id, v(0, 1), { topK: 2 })).length, 2);
});

Deno.test("vectors: putVectors replaces a chunk's vector, per model", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/a.md", ["one"]);
  const [c] = await s.storage.vectors.chunksOf(doc.id);
  await s.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: v(1, 0) }]);
  await s.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: v(0, 1) }]);
  await s.storage.vectors.putVectors("other-model", [{ chunk_id: c.id, vector: v(1, 0) }]);
  assert.equal(vectorRows(s.storage), 2);
  assert.equal((await search(s.storage, s.brain.id, v(0, 1)))[0].score, 1, "the newer vector");
  assert.equal(
    (await search(s.storage, s.brain.id, v(0, 1), { model: "other-model" }))[0].score,
    0,
  );
  assert.deepEqual(await search(s.storage, s.brain.id, v(0, 1), { model: "unknown" }), []);
});

Deno.test("vectors: a vector is stored as Float32 and survives a round trip exactly", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/a.md", ["one"]);
  const [c] = await s.storage.vectors.chunksOf(doc.id);
  // A view into a larger buffer at an offset: only the viewed floats may be stored.
  const backing = new Float32Array([9, 0.1, 0.2, 0.3, 9]);
  await s.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: backing.subarray(1, 4) }]);
  const row = s.storage.connection.db.prepare("SELECT dims, vector FROM chunk_vectors").get() as {
    dims: number;
    vector: Uint8Array;
  };
  assert.equal(row.dims, 3);
  assert.deepEqual(
    [...new Float32Array(row.vector.slice().buffer)],
    [...backing.subarray(1, 4)],
  );
});

Deno.test("vectors: a new document version deletes the old chunks' vector rows; none come back", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/a.md", ["old one", "old two"]);
  const old = await s.storage.vectors.chunksOf(doc.id);
  await s.storage.vectors.putVectors(MODEL, old.map((c) => ({ chunk_id: c.id, vector: v(1, 1) })));
  assert.equal(vectorRows(s.storage), 2);
  await writeDoc(s.storage, s.brain.id, "/a.md", ["new one"]);
  assert.equal(vectorRows(s.storage), 0, "the old chunks' vectors went with them");
  // An embedding computed for a chunk that is gone meanwhile writes no row.
  await s.storage.vectors.putVectors(MODEL, [{ chunk_id: old[0].id, vector: v(1, 1) }]);
  assert.equal(vectorRows(s.storage), 0);
});

Deno.test("vectors: chunksWithoutVectors honours model, limit, brain and forgotten documents", async () => {
  await using s = await openStore();
  const other = await otherBrain(s.storage);
  const a = await writeDoc(s.storage, s.brain.id, "/a.md", ["a1", "a2", "a3"]);
  const gone = await writeDoc(s.storage, s.brain.id, "/gone.md", ["g1"]);
  await writeDoc(s.storage, other.id, "/o.md", ["o1"]);
  await s.storage.documents.markDeleted(s.brain.id, gone.id, new Date().toISOString());
  const [a1] = await s.storage.vectors.chunksOf(a.id);
  await s.storage.vectors.putVectors(MODEL, [{ chunk_id: a1.id, vector: v(1) }]);
  const texts = async (model: string, limit: number) =>
    (await s.storage.vectors.chunksWithoutVectors(s.brain.id, { model, limit })).map((c) => c.text);
  assert.deepEqual(await texts(MODEL, 10), ["a2", "a3"]);
  assert.deepEqual(await texts(MODEL, 1), ["a2"]);
  assert.deepEqual(await texts("other-model", 10), ["a1", "a2", "a3"]);
});

Deno.test("vectors: search stays within the brain and scope and skips forgotten documents", async () => {
  await using s = await openStore();
  const other = await otherBrain(s.storage);
  const put = async (brainId: string, path: string) => {
    const doc = await writeDoc(s.storage, brainId, path, [path]);
    const [c] = await s.storage.vectors.chunksOf(doc.id);
    await s.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: v(1, 0) }]);
    return doc;
  };
  await put(s.brain.id, "/memory/project/p.md");
  await put(s.brain.id, "/memory/global/g.md");
  await put(s.brain.id, "/notes/n.md");
  const forgotten = await put(s.brain.id, "/memory/project/forgotten.md");
  await put(other.id, "/memory/project/elsewhere.md");
  await s.storage.documents.markDeleted(s.brain.id, forgotten.id, new Date().toISOString());

  const paths = async (scope: Scope) =>
    (await search(s.storage, s.brain.id, v(1, 0), { scope })).map((h) => h.path).sort();
  assert.deepEqual(await paths("all"), [
    "/memory/global/g.md",
    "/memory/project/p.md",
    "/notes/n.md",
  ]);
  assert.deepEqual(await paths("project"), ["/memory/project/p.md"]);
  assert.deepEqual(await paths("global"), ["/memory/global/g.md"]);
  assert.deepEqual(await paths("agent"), []);
});

Deno.test("vectors: vectors of another dimension or with no direction are skipped", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/a.md", ["two-d", "three-d", "zero"]);
  const [two, three, zero] = await s.storage.vectors.chunksOf(doc.id);
  await s.storage.vectors.putVectors(MODEL, [
    { chunk_id: two.id, vector: v(1, 0) },
    { chunk_id: three.id, vector: v(1, 0, 0) },
    { chunk_id: zero.id, vector: v(0, 0) },
  ]);
  assert.deepEqual((await search(s.storage, s.brain.id, v(1, 0))).map((h) => h.content), ["two-d"]);
  assert.deepEqual((await search(s.storage, s.brain.id, v(1, 0, 0))).map((h) => h.content), [
    "three-d",
  ]);
  assert.deepEqual(
    await search(s.storage, s.brain.id, v(0, 0)),
    [],
    "a zero query matches nothing",
  );
});

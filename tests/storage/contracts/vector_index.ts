/**
 * @module The VectorIndex contract: chunks to embed, vectors per model that never outlive their
 * chunk, and cosine nearest-neighbour search within a brain and scope.
 */
import assert from "node:assert/strict";
import type { Scope } from "../../../src/core/limits.ts";
import type { VectorQuery } from "../../../src/core/ports/vector_index.ts";
import type { SearchHit } from "../../../src/core/types.ts";
import { type ContractBackend, type Fixture, newBrain, withBrain, writeDoc } from "./backend.ts";

const MODEL = "test-embed";
const v = (...xs: number[]) => new Float32Array(xs);

/** Registers the VectorIndex cases for `backend`. */
export function vectorIndexContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} VectorIndex: ${name}`, fn);

  const search = (
    f: Fixture,
    vector: Float32Array,
    extra: Partial<VectorQuery> = {},
  ): Promise<SearchHit[]> =>
    f.storage.vectors.vectorSearch({
      brainId: f.brain.id,
      vector,
      model: MODEL,
      topK: 10,
      scope: "all",
      ...extra,
    });

  test("chunksOf lists a document's current chunks in order; none for an unknown document", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", [
      "first",
      "second",
      "third",
    ]);
    const chunks = await f.storage.vectors.chunksOf(doc.id);
    assert.deepEqual(chunks.map((c) => c.text), ["first", "second", "third"]);
    assert.equal(new Set(chunks.map((c) => c.id)).size, 3);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["only"]);
    assert.deepEqual((await f.storage.vectors.chunksOf(doc.id)).map((c) => c.text), ["only"]);
    assert.deepEqual(await f.storage.vectors.chunksOf("doc_missing"), []);
  });

  test("vectorSearch ranks by cosine similarity; hits are full hits without highlights", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(
      f.storage.documents,
      f.brain.id,
      "/notes/a.md",
      ["east", "north", "northeast"],
      { headings: ["Compass", "Points"], metadata: { k: "v" }, at: "2030-02-01T00:00:00.000Z" },
    );
    const [east, north, ne] = await f.storage.vectors.chunksOf(doc.id);
    await f.storage.vectors.putVectors(MODEL, [
      { chunk_id: east.id, vector: v(1, 0) },
      { chunk_id: north.id, vector: v(0, 2) },
      { chunk_id: ne.id, vector: v(3, 3) },
    ]);
    const hits = await search(f, v(0, 1));
    assert.deepEqual(hits.map((h) => h.content), ["north", "northeast", "east"]);
    assert.ok(Math.abs(hits[0].score - 1) < 1e-6, String(hits[0].score));
    assert.ok(Math.abs(hits[1].score - Math.SQRT1_2) < 1e-6, String(hits[1].score));
    assert.ok(Math.abs(hits[2].score) < 1e-6, String(hits[2].score));
    const { score: _, ...rest } = hits[0];
    assert.deepEqual(rest, {
      path: "/notes/a.md",
      content: "north",
      document_id: doc.id,
      chunk_id: north.id,
      title: doc.title,
      brain_id: f.brain.id,
      metadata: { k: "v" },
      highlights: [],
      heading_path: ["Compass", "Points"],
      updated_at: "2030-02-01T00:00:00.000Z",
    });
    assert.deepEqual((await search(f, v(0, 1), { topK: 2 })).map((h) => h.content), [
      "north",
      "northeast",
    ]);
  });

  test("putVectors replaces a chunk's vector, per model", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["one"]);
    const [c] = await f.storage.vectors.chunksOf(doc.id);
    await f.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: v(1, 0) }]);
    await f.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: v(0, 1) }]);
    await f.storage.vectors.putVectors("other-model", [{ chunk_id: c.id, vector: v(1, 0) }]);
    const hits = await search(f, v(0, 1));
    assert.equal(hits.length, 1, "one vector per chunk and model");
    assert.ok(Math.abs(hits[0].score - 1) < 1e-6, "the newer vector counts");
    const others = await search(f, v(0, 1), { model: "other-model" });
    assert.ok(Math.abs(others[0].score) < 1e-6, "the other model keeps its own");
    assert.deepEqual(await search(f, v(0, 1), { model: "unknown" }), []);
  });

  test("a vector given as a view into a larger buffer stores just the viewed floats", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["x", "y"]);
    const [x, y] = await f.storage.vectors.chunksOf(doc.id);
    const backing = new Float32Array([9, 0, 1, 9, 9]);
    await f.storage.vectors.putVectors(MODEL, [
      { chunk_id: x.id, vector: backing.subarray(1, 3) },
      { chunk_id: y.id, vector: v(1, 0) },
    ]);
    const hits = await search(f, v(0, 1));
    assert.deepEqual(hits.map((h) => h.content), ["x", "y"]);
    assert.ok(Math.abs(hits[0].score - 1) < 1e-6, String(hits[0].score));
  });

  test("a new version drops the old chunks' vectors; a vector for a vanished chunk is ignored", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["old one", "old two"]);
    const old = await f.storage.vectors.chunksOf(doc.id);
    await f.storage.vectors.putVectors(
      MODEL,
      old.map((c) => ({ chunk_id: c.id, vector: v(1, 1) })),
    );
    assert.deepEqual(
      await f.storage.vectors.chunksWithoutVectors(f.brain.id, { model: MODEL, limit: 10 }),
      [],
    );
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["new one"]);
    assert.deepEqual(await search(f, v(1, 1)), []);
    const pending = await f.storage.vectors.chunksWithoutVectors(f.brain.id, {
      model: MODEL,
      limit: 10,
    });
    assert.deepEqual(pending, await f.storage.vectors.chunksOf(doc.id));
    assert.deepEqual(pending.map((c) => c.text), ["new one"]);
    // An embedding finished after its document was rewritten must not fail, nor come back.
    await f.storage.vectors.putVectors(MODEL, [{ chunk_id: old[0].id, vector: v(1, 1) }]);
    assert.deepEqual(await search(f, v(1, 1)), []);
  });

  test("chunksWithoutVectors honours model, limit, brain and forgotten documents", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const a = await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["a1", "a2", "a3"]);
    const gone = await writeDoc(f.storage.documents, f.brain.id, "/gone.md", ["g1"]);
    await writeDoc(f.storage.documents, other.id, "/o.md", ["o1"]);
    await f.storage.documents.markDeleted(f.brain.id, gone.id, "2030-01-02T00:00:00.000Z");
    const [a1] = await f.storage.vectors.chunksOf(a.id);
    await f.storage.vectors.putVectors(MODEL, [{ chunk_id: a1.id, vector: v(1) }]);
    const texts = async (model: string, limit: number) =>
      (await f.storage.vectors.chunksWithoutVectors(f.brain.id, { model, limit })).map((c) =>
        c.text
      );
    assert.deepEqual((await texts(MODEL, 10)).sort(), ["a2", "a3"]);
    assert.equal((await texts(MODEL, 1)).length, 1);
    assert.deepEqual((await texts("other-model", 10)).sort(), ["a1", "a2", "a3"]);
    assert.deepEqual(await texts(MODEL, 0), []);
  });

  test("vectorSearch stays within the brain and scope and skips forgotten documents", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const put = async (brainId: string, path: string) => {
      const doc = await writeDoc(f.storage.documents, brainId, path, [path]);
      const [c] = await f.storage.vectors.chunksOf(doc.id);
      await f.storage.vectors.putVectors(MODEL, [{ chunk_id: c.id, vector: v(1, 0) }]);
      return doc;
    };
    await put(f.brain.id, "/memory/project/p.md");
    await put(f.brain.id, "/memory/global/g.md");
    await put(f.brain.id, "/memory/globalish/x.md");
    await put(f.brain.id, "/notes/n.md");
    const forgotten = await put(f.brain.id, "/memory/project/forgotten.md");
    await put(other.id, "/memory/project/elsewhere.md");
    await f.storage.documents.markDeleted(f.brain.id, forgotten.id, "2030-01-02T00:00:00.000Z");
    const paths = async (scope: Scope) =>
      (await search(f, v(1, 0), { scope })).map((h) => h.path).sort();
    assert.deepEqual(await paths("all"), [
      "/memory/global/g.md",
      "/memory/globalish/x.md",
      "/memory/project/p.md",
      "/notes/n.md",
    ]);
    assert.deepEqual(await paths("project"), ["/memory/project/p.md"]);
    assert.deepEqual(await paths("global"), ["/memory/global/g.md"]);
    assert.deepEqual(await paths("agent"), []);
  });
}

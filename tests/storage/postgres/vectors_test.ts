/**
 * @module PostgreSQL vectors without pgvector (the tested path: Debian 12 has no package for it):
 * many vectors read through the cursor in batches, vectors of another dimension and zero vectors
 * skipped, and floats stored exactly as given.
 */
import assert from "node:assert/strict";
import { writeDoc } from "../contracts/backend.ts";
import { startCluster } from "./_cluster.ts";
import { oneNode } from "./_storage.ts";

const MODEL = "test-embed";

const cluster = await startCluster();

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("postgres vectors: this cluster has no pgvector, so the tested path is engram's own", async () => {
    await using n = await oneNode(cluster);
    const [{ found }] = await n.storage.connection.pool<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS found`;
    assert.equal(found, false);
  });

  Deno.test("postgres vectors: a search reads every vector of the brain, past one cursor batch", async () => {
    await using n = await oneNode(cluster);
    const bodies = Array.from({ length: 2500 }, (_, i) => `chunk ${i}`);
    const doc = await writeDoc(n.storage.documents, n.brain.id, "/many.md", bodies);
    const chunks = await n.storage.vectors.chunksOf(doc.id);
    // Chunk i points at angle i / 2500 of a quarter turn: the last ones are nearest to (0, 1).
    await n.storage.vectors.putVectors(
      MODEL,
      chunks.map((c, i) => {
        const a = (i / (bodies.length - 1)) * (Math.PI / 2);
        return { chunk_id: c.id, vector: new Float32Array([Math.cos(a), Math.sin(a), 0]) };
      }),
    );
    const hits = await n.storage.vectors.vectorSearch({
      brainId: n.brain.id,
      vector: new Float32Array([0, 1, 0]),
      model: MODEL,
      topK: 3,
      scope: "all",
    });
    assert.deepEqual(hits.map((h) => h.content), ["chunk 2499", "chunk 2498", "chunk 2497"]);
    assert.ok(hits[0].score >= hits[1].score && hits[1].score >= hits[2].score);
  });

  Deno.test("postgres vectors: a search inside a unit of work reads through the unit's transaction", async () => {
    await using n = await oneNode(cluster);
    const hits = await n.storage.units.withTransaction(async () => {
      const doc = await writeDoc(n.storage.documents, n.brain.id, "/u.md", ["in the unit"]);
      const [c] = await n.storage.vectors.chunksOf(doc.id);
      await n.storage.vectors.putVectors(MODEL, [{
        chunk_id: c.id,
        vector: new Float32Array([1, 0]),
      }]);
      return await n.storage.vectors.vectorSearch({
        brainId: n.brain.id,
        vector: new Float32Array([1, 0]),
        model: MODEL,
        topK: 5,
        scope: "all",
      });
    });
    assert.deepEqual(
      hits.map((h) => h.content),
      ["in the unit"],
      "the unit's own uncommitted vector",
    );
  });

  Deno.test("postgres vectors: zero vectors, other dimensions and NaN are skipped; floats kept exactly", async () => {
    await using n = await oneNode(cluster);
    const doc = await writeDoc(n.storage.documents, n.brain.id, "/a.md", [
      "zero",
      "short",
      "nan",
      "ok",
    ]);
    const [zero, short, nan, ok] = await n.storage.vectors.chunksOf(doc.id);
    const exact = new Float32Array([0.1, 1e-30, 3.4028234663852886e38]);
    await n.storage.vectors.putVectors(MODEL, [
      { chunk_id: zero.id, vector: new Float32Array([0, 0, 0]) },
      { chunk_id: short.id, vector: new Float32Array([1, 1]) },
      { chunk_id: nan.id, vector: new Float32Array([NaN, 1, 1]) },
      { chunk_id: ok.id, vector: exact },
    ]);
    const hits = await n.storage.vectors.vectorSearch({
      brainId: n.brain.id,
      vector: new Float32Array([1, 1, 1]),
      model: MODEL,
      topK: 10,
      scope: "all",
    });
    assert.deepEqual(hits.map((h) => h.content), ["ok"]);
    const [{ stored }] = await n.storage.connection.pool<{ stored: number[] }[]>`
      SELECT vector AS stored FROM chunk_vectors v JOIN chunks c ON c.seq = v.chunk_seq
       WHERE c.id = ${ok.id}`;
    assert.deepEqual(new Float32Array(stored), exact);
    assert.deepEqual(
      await n.storage.vectors.vectorSearch({
        brainId: n.brain.id,
        vector: new Float32Array([0, 0, 0]),
        model: MODEL,
        topK: 10,
        scope: "all",
      }),
      [],
      "a zero query has no direction",
    );
  });
}

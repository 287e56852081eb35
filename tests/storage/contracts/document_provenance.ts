/**
 * @module The DocumentStore contract for provenance (docs/tools.md#result-records): a version
 * written with `provenance` records it with that version and its content checksum; `origins`
 * answers each document's source, checksum and provenance; a later write of source `compile`
 * keeps it, a write of any other source drops it.
 */
import assert from "node:assert/strict";
import type { CompiledFrom } from "../../../src/core/types.ts";
import { type ContractBackend, newBrain, uid, withBrain, writeDoc } from "./backend.ts";

const FROM: CompiledFrom = {
  server: "docs",
  uri: "fixture://text/hello",
  mime_type: "text/plain",
  fetched_at: "2030-01-02T00:00:00.000Z",
  sha256: "1".repeat(64),
  approval: "sha256:" + "2".repeat(64),
};

const C = (n: number) => String(n).repeat(64);

/** Registers the provenance cases of DocumentStore for `backend`. */
export function documentProvenanceCases(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} DocumentStore: ${name}`, fn);

  test("origins: source, checksum and the provenance a compile recorded; others' ids left out", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    const compiled = await writeDoc(docs, f.brain.id, "/c.md", ["compiled text"], {
      source: "compile",
      provenance: FROM,
      checksum: C(3),
    });
    const note = await writeDoc(docs, f.brain.id, "/n.md", ["my note"], { checksum: C(4) });
    const other = await newBrain(f.storage.brains, "other");
    const elsewhere = await writeDoc(docs, other.id, "/c.md", ["x"], {
      source: "compile",
      provenance: FROM,
    });
    const origins = await docs.origins(f.brain.id, [
      compiled.id,
      note.id,
      compiled.id,
      elsewhere.id,
      uid("doc"),
    ]);
    assert.deepEqual([...origins.keys()].sort(), [compiled.id, note.id].sort());
    assert.deepEqual(origins.get(compiled.id), {
      source: "compile",
      checksum_sha256: C(3),
      provenance: { ...FROM, version: 1, content_sha256: C(3) },
    });
    assert.deepEqual(origins.get(note.id), {
      source: "ingest",
      checksum_sha256: C(4),
      provenance: null,
    });
    assert.deepEqual((await docs.origins(f.brain.id, [])).size, 0);
  });

  test("provenance: kept by a compile-source write without it, replaced by a compile, dropped by another source", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    const doc = await writeDoc(docs, f.brain.id, "/c.md", ["v1"], {
      source: "compile",
      provenance: FROM,
      checksum: C(1),
    });
    const origin = async () => (await docs.origins(f.brain.id, [doc.id])).get(doc.id)!;
    // An edit that is not a compile (the document keeps its source): provenance as it was.
    await writeDoc(docs, f.brain.id, "/c.md", ["v2 edited"], { source: "compile", checksum: C(2) });
    assert.deepEqual(await origin(), {
      source: "compile",
      checksum_sha256: C(2),
      provenance: { ...FROM, version: 1, content_sha256: C(1) },
    });
    const later = { ...FROM, fetched_at: "2030-01-05T00:00:00.000Z", sha256: "5".repeat(64) };
    await writeDoc(docs, f.brain.id, "/c.md", ["v3"], {
      source: "compile",
      provenance: later,
      checksum: C(3),
    });
    assert.deepEqual((await origin()).provenance, { ...later, version: 3, content_sha256: C(3) });
    // Forgotten documents keep theirs.
    await docs.markDeleted(f.brain.id, doc.id, "2030-01-06T00:00:00.000Z");
    assert.equal((await origin()).provenance?.version, 3);
    await writeDoc(docs, f.brain.id, "/c.md", ["v4 ingested"], { checksum: C(4) });
    assert.deepEqual(await origin(), {
      source: "ingest",
      checksum_sha256: C(4),
      provenance: null,
    });
  });
}

import assert from "node:assert/strict";
import type { SearchHit, SearchQuery } from "../../../src/core/types.ts";
import { SearchCache } from "../../../src/storage/sqlite/search/search_cache.ts";
import { DatabaseStamp } from "../../../src/storage/sqlite/stamped_cache.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import { openStore, otherBrain, writeDoc } from "./_store.ts";

const query = (brainId: string, text: string, topK = 10): SearchQuery => ({
  brainId,
  text,
  topK,
  scope: "all",
  sort: "relevance",
});

const paths = (hits: SearchHit[]) => hits.map((h) => h.path);

Deno.test("search cache: a repeated search is answered from the cache, with fresh copies", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  const first = await s.storage.search.search(query(s.brain.id, "heron"));
  const second = await s.storage.search.search(query(s.brain.id, "heron"));
  assert.deepEqual(second, first);
  // Recomputed hits parse metadata anew; a cached one hands out the same frozen object.
  assert.equal(second[0].metadata, first[0].metadata);
  assert.ok(Object.isFrozen(second[0].metadata));
  // Top-level fields are copies: editing one result does not edit the next.
  second[0].score = -1;
  const third = await s.storage.search.search(query(s.brain.id, "heron"));
  assert.equal(third[0].score, first[0].score);
  assert.throws(() => third[0].highlights.push("x"), TypeError);
  // Another top_k is another search.
  const fourth = await s.storage.search.search(query(s.brain.id, "heron", 5));
  assert.notEqual(fourth[0].metadata, first[0].metadata);
});

Deno.test("search cache: off with searchCacheMb 0", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  const storage = openSqliteStorage(s.file, { searchCacheMb: 0 });
  try {
    const first = await storage.search.search(query(s.brain.id, "heron"));
    const second = await storage.search.search(query(s.brain.id, "heron"));
    assert.deepEqual(second, first);
    assert.notEqual(second[0].metadata, first[0].metadata);
  } finally {
    storage.close();
  }
});

Deno.test("search cache: a write, an edit and a forget through this store are seen at once", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))), ["/a.md"]);
  await writeDoc(s.storage, s.brain.id, "/b.md", ["a heron again"]);
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))).sort(), [
    "/a.md",
    "/b.md",
  ]);
  await writeDoc(s.storage, s.brain.id, "/b.md", ["now about otters"]);
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))), ["/a.md"]);
  const a = await s.storage.documents.findDocument(s.brain.id, { path: "/a.md" });
  await s.storage.documents.markDeleted(s.brain.id, a!.id, new Date().toISOString());
  assert.deepEqual(await s.storage.search.search(query(s.brain.id, "heron")), []);
});

Deno.test("search cache: a commit by another connection (another process) empties it", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))), ["/a.md"]);
  const other = openSqliteStorage(s.file);
  try {
    await writeDoc(other, s.brain.id, "/b.md", ["another heron"]);
    const a = await other.documents.findDocument(s.brain.id, { path: "/a.md" });
    await other.documents.markDeleted(s.brain.id, a!.id, new Date().toISOString());
  } finally {
    other.close();
  }
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))), ["/b.md"]);
});

Deno.test("search cache: a search inside a rolled-back batch leaves nothing behind", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  await assert.rejects(
    s.storage.units.withTransaction(async () => {
      await writeDoc(s.storage, s.brain.id, "/b.md", ["a heron inside the batch"]);
      assert.equal((await s.storage.search.search(query(s.brain.id, "heron"))).length, 2);
      throw new Error("abandon the batch");
    }),
    /abandon the batch/,
  );
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))), ["/a.md"]);
});

Deno.test("SearchCache: least recently used goes first; a new stamp empties it", () => {
  const hit = (path: string) =>
    ({
      path,
      title: "",
      content: "x".repeat(100),
      metadata: {},
      highlights: [],
      heading_path: [],
    }) as unknown as SearchHit;
  // Room for two of these hits (each: 256 + 2 × 104 bytes), not three.
  const cache = new SearchCache(1000);
  const q = (text: string) => query("brn", text);
  cache.set(q("a"), "1", [hit("/a")]);
  cache.set(q("b"), "1", [hit("/b")]);
  assert.ok(cache.get(q("a"), "1"), "a is cached");
  cache.set(q("c"), "1", [hit("/c")]);
  assert.equal(cache.get(q("b"), "1"), undefined, "b was the least recently used");
  assert.deepEqual(paths(cache.get(q("a"), "1")!), ["/a"]);
  assert.deepEqual(paths(cache.get(q("c"), "1")!), ["/c"]);
  assert.equal(cache.bytes, 2 * 464);
  assert.equal(cache.get(q("a"), "2"), undefined, "another stamp");
  assert.equal(cache.get(q("c"), "2"), undefined, "emptied by the new stamp");
  cache.set(q("big"), "2", [hit("/1"), hit("/2"), hit("/3")]);
  assert.equal(cache.get(q("big"), "2"), undefined, "larger than the whole budget: not kept");
  const off = new SearchCache(0);
  assert.equal(off.enabled, false);
  off.set(q("a"), "1", [hit("/a")]);
  assert.equal(off.get(q("a"), "1"), undefined);
});

Deno.test("read caches: brains and tokens written by another connection are seen at once", async () => {
  await using s = await openStore();
  const tokens = new TokenService(s.storage);
  const { token, record } = await tokens.create({ client: "ci", tier: "read" });
  assert.equal((await tokens.verify(token))?.clientId, "ci");
  assert.equal(await s.storage.brains.findBrain("later"), null);
  assert.equal((await s.storage.brains.listBrains()).length, 1);
  const other = openSqliteStorage(s.file);
  try {
    await new TokenService(other).revoke(record.id);
    await otherBrain(other, "later");
  } finally {
    other.close();
  }
  assert.equal(await tokens.verify(token), null, "revoked elsewhere: refused on the next request");
  assert.equal((await s.storage.brains.findBrain("later"))?.slug, "later");
  assert.deepEqual((await s.storage.brains.listBrains()).map((b) => b.slug), ["default", "later"]);
});

Deno.test("read caches: a token revoked or a brain created here is seen at once; rows are frozen", async () => {
  await using s = await openStore();
  const tokens = new TokenService(s.storage);
  const { token, record } = await tokens.create({
    client: "ci",
    tier: "read",
    brains: ["default"],
  });
  const grant = await tokens.verify(token);
  assert.deepEqual(grant?.brains, [s.brain.id]);
  assert.throws(() => (grant!.brains as string[]).push("brn_x"), TypeError);
  await otherBrain(s.storage, "later");
  assert.equal((await s.storage.brains.findBrain("later"))?.slug, "later");
  await tokens.revoke(record.id);
  assert.equal(await tokens.verify(token), null);
});

Deno.test("DatabaseStamp: own writes count at once; data_version is re-read after 0.2 ms", () => {
  let version = 1;
  let reads = 0;
  let now = 0;
  const stamp = new DatabaseStamp(() => {
    reads++;
    return version;
  }, { now: () => now });
  const first = stamp.current();
  version = 2; // another process commits
  now += 0.1;
  assert.equal(stamp.current(), first, "within 0.2 ms the version read is reused");
  stamp.bump();
  assert.notEqual(stamp.current(), first, "a write through this connection counts at once");
  now += 0.2;
  assert.equal(stamp.current(), "1.2", "then the other process's commit is seen");
  assert.equal(reads, 2);
});

Deno.test("read caches: a brain read inside a rolled-back batch does not linger", async () => {
  await using s = await openStore();
  assert.equal((await s.storage.brains.listBrains()).length, 1);
  await assert.rejects(
    s.storage.units.withTransaction(async () => {
      await otherBrain(s.storage, "phantom");
      assert.equal((await s.storage.brains.findBrain("phantom"))?.slug, "phantom");
      throw new Error("abandon the batch");
    }),
    /abandon the batch/,
  );
  assert.equal(await s.storage.brains.findBrain("phantom"), null);
  assert.deepEqual((await s.storage.brains.listBrains()).map((b) => b.slug), ["default"]);
});

Deno.test("read caches: writes no cache reads (sessions, jobs, locks, vectors, upstreams) leave them in place", async () => {
  await using s = await openStore();
  const doc = await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  await s.storage.tokens.insertToken({
    id: "tok_1",
    client_id: "ci",
    tier: "read",
    brains: "*",
    tools: null,
    token_hash: "hash_1",
    prefix: "egt_abcd",
    created_at: "2030-01-01T00:00:00.000Z",
    last_used_at: null,
    revoked_at: null,
    expires_at: null,
    audience: null,
    oauth_client_id: null,
  });
  const hits = await s.storage.search.search(query(s.brain.id, "heron"));
  const [brain] = await s.storage.brains.listBrains();
  const token = await s.storage.tokens.findTokenByHash("hash_1");
  const at = new Date().toISOString();

  await s.storage.sessions.createSession({
    id: "ses_1",
    brain_id: s.brain.id,
    client_id: null,
    actor_id: null,
    started_at: at,
    ended_at: null,
    metadata: {},
  });
  await s.storage.sessions.appendMessages("ses_1", [
    { id: "msg_1", role: "user", content: "a heron", created_at: at, metadata: {} },
  ]);
  await s.storage.units.withTransaction(() =>
    s.storage.sessions.updateSession("ses_1", { ended_at: at })
  );
  await s.storage.jobs.enqueueJob({ id: "job_1", kind: "k", brain_id: s.brain.id, payload: {} });
  assert.equal((await s.storage.jobs.claimJob(60_000))?.id, "job_1");
  await s.storage.jobs.renewJob("job_1", 60_000);
  await s.storage.jobs.completeJob("job_1", {});
  assert.equal(await s.storage.locks.acquireLock("consolidate", "me", 60_000), null, "taken");
  await s.storage.locks.releaseLock("consolidate", "me");
  const [chunk] = await s.storage.vectors.chunksOf(doc.id);
  await s.storage.vectors.putVectors("m", [{ chunk_id: chunk.id, vector: new Float32Array([1]) }]);
  await s.storage.upstreams.recordUpstreamStatus("files", { status: "ok", error: null, at });

  const again = await s.storage.search.search(query(s.brain.id, "heron"));
  assert.equal(again[0].metadata, hits[0].metadata, "the search is still answered from the cache");
  assert.equal((await s.storage.brains.listBrains())[0], brain, "so is the brain list");
  assert.equal(await s.storage.tokens.findTokenByHash("hash_1"), token, "and the token row");

  // Recording a token's use refreshes that row alone.
  await s.storage.tokens.touchToken("tok_1", at, { olderThan: at });
  assert.equal((await s.storage.tokens.findTokenByHash("hash_1"))?.last_used_at, at);
  const touched = await s.storage.search.search(query(s.brain.id, "heron"));
  assert.equal(touched[0].metadata, hits[0].metadata, "a touch leaves the search cache alone");
  assert.equal((await s.storage.brains.listBrains())[0], brain);

  // A document write, even one the search does not find, empties every cache.
  await writeDoc(s.storage, s.brain.id, "/b.md", ["now about otters"]);
  const after = await s.storage.search.search(query(s.brain.id, "heron"));
  assert.deepEqual(after, hits);
  assert.notEqual(after[0].metadata, hits[0].metadata, "recomputed after the document write");
  assert.notEqual((await s.storage.brains.listBrains())[0], brain);
});

Deno.test("read caches: a unit of work that writes a document empties them at its commit", async () => {
  await using s = await openStore();
  await writeDoc(s.storage, s.brain.id, "/a.md", ["the heron nests by the river"]);
  const hits = await s.storage.search.search(query(s.brain.id, "heron"));
  await s.storage.units.withTransaction(async () => {
    await s.storage.jobs.enqueueJob({ id: "job_1", kind: "k", brain_id: s.brain.id, payload: {} });
    await writeDoc(s.storage, s.brain.id, "/b.md", ["a heron in the batch"]);
  });
  assert.deepEqual(paths(await s.storage.search.search(query(s.brain.id, "heron"))).sort(), [
    "/a.md",
    "/b.md",
  ]);
  const [chunk] = await s.storage.vectors.chunksOf(hits[0].document_id);
  await s.storage.units.withTransaction(() =>
    s.storage.vectors.putVectors("m", [{ chunk_id: chunk.id, vector: new Float32Array([1]) }])
  );
  const first = await s.storage.search.search(query(s.brain.id, "heron"));
  await s.storage.units.withTransaction(() =>
    s.storage.search.replaceIndex(hits[0].document_id, [{
      ordinal: 0,
      heading_path: [],
      body: "the heron left the river",
      start_offset: 0,
      end_offset: 24,
    }], [])
  );
  const rechunked = await s.storage.search.search(query(s.brain.id, "heron"));
  assert.notEqual(rechunked[0].metadata, first[0].metadata, "re-chunking empties the cache");
  assert.ok(rechunked.some((h) => h.content === "the heron left the river"));
});

Deno.test("read caches: a brain renamed or deleted here is seen at once, with its tokens", async () => {
  await using s = await openStore();
  const other = await otherBrain(s.storage, "other");
  const tokens = new TokenService(s.storage);
  const { token } = await tokens.create({ client: "ci", tier: "read", brains: ["other"] });
  assert.deepEqual((await tokens.verify(token))?.brains, [other.id]);
  assert.equal((await s.storage.brains.findBrain("other"))?.id, other.id);
  await s.storage.brains.renameBrain(other.id, { slug: "renamed" });
  assert.equal(await s.storage.brains.findBrain("other"), null);
  assert.equal((await s.storage.brains.findBrain("renamed"))?.id, other.id);
  await s.storage.brains.deleteBrain(other.id, { at: new Date().toISOString() });
  assert.equal(await s.storage.brains.findBrain("renamed"), null);
  assert.equal(await tokens.verify(token), null, "its token, revoked with it, is refused at once");
});

/** @module The BrainStore contract: listing, creating, renaming and deleting brains. */
import assert from "node:assert/strict";
import {
  type ContractBackend,
  message,
  MovableClock,
  newBrain,
  rejectsWith,
  searchQuery,
  sessionOf,
  tokenOf,
  uid,
  withBrain,
  writeDoc,
} from "./backend.ts";

/** Registers the BrainStore cases for `backend`. */
export function brainStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} BrainStore: ${name}`, fn);

  test("createBrain stamps the brain with the clock; findBrain finds it by slug and by id", async () => {
    const clock = new MovableClock();
    await using storage = await backend.open({ now: clock.now });
    clock.advance(1_000);
    const input = { id: uid("brn"), slug: "work", name: "Work", visibility: "tenant" as const };
    const brain = await storage.brains.createBrain(input);
    assert.deepEqual(brain, { ...input, created_at: clock.iso(), updated_at: clock.iso() });
    assert.deepEqual(await storage.brains.findBrain("work"), brain);
    assert.deepEqual(await storage.brains.findBrain(input.id), brain);
    assert.equal(await storage.brains.findBrain("nope"), null);
    assert.equal(await storage.brains.findBrain("Work"), null, "the name is not a key");
  });

  test("listBrains is oldest first, not by slug", async () => {
    const clock = new MovableClock();
    await using storage = await backend.open({ now: clock.now });
    assert.deepEqual(await storage.brains.listBrains(), []);
    for (const slug of ["zeta", "alpha", "mid"]) {
      await newBrain(storage.brains, slug);
      clock.advance(1_000);
    }
    assert.deepEqual((await storage.brains.listBrains()).map((b) => b.slug), [
      "zeta",
      "alpha",
      "mid",
    ]);
  });

  test("createBrain refuses a taken slug with conflict and keeps the first brain", async () => {
    await using f = await withBrain(backend);
    await rejectsWith(
      f.storage.brains.createBrain({
        id: uid("brn"),
        slug: "default",
        name: "Second",
        visibility: "public",
      }),
      "conflict",
      { message: /"default"/ },
    );
    assert.deepEqual(await f.storage.brains.listBrains(), [f.brain]);
  });

  test("concurrent creations of one slug: exactly one brain is created", async () => {
    await using storage = await backend.open({ now: new MovableClock().now });
    const results = await Promise.allSettled(
      [1, 2, 3].map((n) =>
        storage.brains.createBrain({
          id: uid("brn"),
          slug: "race",
          name: `Race ${n}`,
          visibility: "private",
        })
      ),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of results) {
      if (r.status === "rejected") await rejectsWith(Promise.reject(r.reason), "conflict");
    }
    assert.equal((await storage.brains.listBrains()).length, 1);
  });

  test("changing a returned brain changes nothing stored", async () => {
    await using f = await withBrain(backend);
    const attempt = (fn: () => void) => {
      try {
        fn();
      } catch {
        // A frozen record refuses the change, which is as good.
      }
    };
    const listed = await f.storage.brains.listBrains();
    attempt(() => (listed[0].slug = "changed"));
    attempt(() => listed.pop());
    const found = (await f.storage.brains.findBrain("default"))!;
    attempt(() => (found.name = "changed"));
    assert.deepEqual(await f.storage.brains.listBrains(), [f.brain]);
    assert.deepEqual(await f.storage.brains.findBrain(f.brain.id), f.brain);
  });

  test("renameBrain changes name and/or slug, keeps id and created_at, stamps updated_at", async () => {
    await using f = await withBrain(backend);
    f.clock.advance(60_000);
    const renamed = await f.storage.brains.renameBrain(f.brain.id, { slug: "work", name: "Work" });
    assert.deepEqual(renamed, {
      ...f.brain,
      slug: "work",
      name: "Work",
      updated_at: f.clock.iso(),
    });
    assert.deepEqual(await f.storage.brains.findBrain("work"), renamed);
    assert.equal(await f.storage.brains.findBrain("default"), null, "the old slug is free");
    const nameOnly = await f.storage.brains.renameBrain(f.brain.id, { name: "Job" });
    assert.equal(nameOnly.slug, "work");
    assert.equal(nameOnly.name, "Job");
    const sameSlug = await f.storage.brains.renameBrain(f.brain.id, { slug: "work" });
    assert.equal(sameSlug.slug, "work", "keeping its own slug is no conflict");
    assert.equal(sameSlug.name, "Job");
    await newBrain(f.storage.brains, "default");
    assert.equal((await f.storage.brains.listBrains()).length, 2);
  });

  test("renameBrain refuses a taken slug (conflict) and a missing brain (no_brain)", async () => {
    await using f = await withBrain(backend);
    await newBrain(f.storage.brains, "taken");
    await rejectsWith(
      f.storage.brains.renameBrain(f.brain.id, { slug: "taken", name: "Changed" }),
      "conflict",
      { message: /"taken"/ },
    );
    assert.deepEqual(await f.storage.brains.findBrain(f.brain.id), f.brain, "nothing changed");
    await rejectsWith(f.storage.brains.renameBrain("brn_missing", { name: "x" }), "no_brain");
  });

  test("deleteBrain removes every row of the brain and leaves other brains alone", async () => {
    await using f = await withBrain(backend);
    const { storage, brain } = f;
    const keep = await newBrain(storage.brains, "keep");
    const a = await writeDoc(storage.documents, brain.id, "/a.md", ["zanzibar one"], {
      metadata: { tags: "gone" },
    });
    const b = await writeDoc(storage.documents, brain.id, "/b.md", ["zanzibar two"]);
    await writeDoc(storage.documents, brain.id, "/b.md", ["zanzibar two again"]);
    await storage.documents.markDeleted(brain.id, b.id, f.clock.iso());
    const kept = await writeDoc(storage.documents, keep.id, "/a.md", ["zanzibar kept"], {
      metadata: { tags: "kept" },
    });
    const [chunk] = await storage.vectors.chunksOf(a.id);
    await storage.vectors.putVectors("m", [{ chunk_id: chunk.id, vector: new Float32Array([1]) }]);
    const session = await storage.sessions.createSession(sessionOf(brain.id));
    await storage.sessions.appendMessages(session.id, [message("hello")]);
    const job = await storage.jobs.enqueueJob({
      id: uid("job"),
      kind: "k",
      brain_id: brain.id,
      payload: {},
    });
    const keptJob = await storage.jobs.enqueueJob({
      id: uid("job"),
      kind: "k",
      brain_id: keep.id,
      payload: {},
    });
    assert.equal(await storage.locks.acquireLock(`consolidate:${brain.id}`, "p1", 60_000), null);

    const done = await storage.brains.deleteBrain(brain.id, { at: f.clock.iso() });

    assert.equal(done.documents, 2, "forgotten documents are counted too");
    assert.equal(await storage.brains.findBrain(brain.id), null);
    assert.equal(await storage.brains.findBrain("default"), null);
    assert.deepEqual((await storage.brains.listBrains()).map((x) => x.slug), ["keep"]);
    assert.equal(await storage.documents.findDocument(brain.id, { id: a.id }), null);
    assert.equal(await storage.documents.readDocument(brain.id, { id: b.id }, 1), null);
    assert.equal(await storage.documents.documentIdTaken(a.id), false);
    assert.equal(await storage.documents.documentIdTaken(b.id), false);
    assert.equal(await storage.search.chunkCount(a.id), 0);
    assert.deepEqual(await storage.vectors.chunksOf(a.id), []);
    assert.equal(await storage.sessions.getSession(session.id), null);
    assert.equal(await storage.sessions.messageCount(session.id), 0);
    assert.equal(await storage.jobs.getJob(job.id), null);
    assert.equal(
      await storage.locks.acquireLock(`consolidate:${brain.id}`, "p2", 60_000),
      null,
      "the brain's lock went with it",
    );
    // The other brain is untouched.
    assert.deepEqual(await storage.documents.findDocument(keep.id, { id: kept.id }), kept);
    const hits = await storage.search.search(searchQuery(keep.id, "zanzibar"));
    assert.deepEqual(hits.map((h) => h.document_id), [kept.id]);
    assert.deepEqual(await storage.search.tags(keep.id), [{ tag: "kept", count: 1 }]);
    assert.equal((await storage.jobs.getJob(keptJob.id))?.status, "queued");
    assert.equal((await storage.documents.stats(keep.id)).documents, 1);
  });

  test("deleteBrain revokes tokens scoped to it alone and narrows tokens scoped to several", async () => {
    await using f = await withBrain(backend);
    const keep = await newBrain(f.storage.brains, "keep");
    const only = tokenOf({ brains: [f.brain.id] });
    const both = tokenOf({ brains: [f.brain.id, keep.id] });
    const all = tokenOf({ brains: "*" });
    const other = tokenOf({ brains: [keep.id] });
    const old = tokenOf({ brains: [f.brain.id], revoked_at: "2029-01-01T00:00:00.000Z" });
    for (const t of [only, both, all, other, old]) await f.storage.tokens.insertToken(t);

    const at = "2031-01-01T00:00:00.000Z";
    const done = await f.storage.brains.deleteBrain(f.brain.id, { at });

    assert.deepEqual(done.revokedTokens, [only.id]);
    assert.deepEqual(done.narrowedTokens, [both.id]);
    const byId = new Map((await f.storage.tokens.listTokens()).map((t) => [t.id, t]));
    const revoked = byId.get(only.id)!;
    assert.equal(revoked.revoked_at, at);
    assert.notEqual(revoked.brains, "*", "a revoked token never widens to every brain");
    assert.ok(!(revoked.brains as string[]).includes(keep.id));
    assert.deepEqual(byId.get(both.id)!.brains, [keep.id]);
    assert.equal(byId.get(both.id)!.revoked_at, null);
    assert.equal(byId.get(all.id)!.brains, "*");
    assert.equal(byId.get(all.id)!.revoked_at, null);
    assert.deepEqual(byId.get(other.id)!.brains, [keep.id]);
    assert.equal(byId.get(old.id)!.revoked_at, old.revoked_at, "an old revocation keeps its time");
    assert.equal((await f.storage.tokens.findTokenByHash(only.token_hash))?.revoked_at, at);
  });
}

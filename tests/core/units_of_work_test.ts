/**
 * @module The multi-write flows are units of work: extraction, memory_extract, reflection,
 * consolidation and queued ingestion keep all of their writes or none, announce changes only once
 * committed, and never call a model while holding the write lock.
 */
import assert from "node:assert/strict";
import { consolidate } from "../../src/core/sessions/consolidate.ts";
import { EngramError } from "../../src/core/errors.ts";
import { extract, runExtraction } from "../../src/core/sessions/extraction.ts";
import { keepFacts } from "../../src/core/sessions/facts.ts";
import { reflect } from "../../src/core/sessions/reflect.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { MemoryService } from "../../src/core/memory_service.ts";
import type { DocumentChange } from "../../src/core/change_feed.ts";
import type { Embedder } from "../../src/core/ports/language_model.ts";
import { ingestFile } from "../../src/ingest/ingest_file.ts";
import { ProviderSet } from "../../src/providers/stack.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";
import { queuedBigFile } from "../ingest/_big_file.ts";

/** Makes SQLite fail midway through a write (after the document row, at its chunks). */
const BOOM_TRIGGER = `CREATE TRIGGER boom BEFORE INSERT ON chunks WHEN new.body LIKE '%BOOM%'
  BEGIN SELECT RAISE(ABORT, 'boom'); END;`;

const EXTRACTIVE = new ProviderSet([], { logger: silentLogger }).background();

Deno.test("extraction keeps all of a run's facts and its progress mark, or none of them", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  s.storage.connection.db.exec(BOOM_TRIGGER);
  const ports = { service: s.service, sessions: s.storage.sessions, jobs: s.storage.jobs };
  const queued = await extract(ports, ADMIN, {
    session_id: "ses-atomic",
    scope: "global",
    messages: [
      { role: "user", content: "I prefer tabs." },
      { role: "user", content: "I live in BOOMtown." },
    ],
  });
  const job = { brain_id: queued.brain_id, payload: { session_id: "ses-atomic", scope: "global" } };
  const deps = { service: s.service, sessions: s.storage.sessions, model: EXTRACTIVE };
  await assert.rejects(
    runExtraction(deps, ADMIN, job as Parameters<typeof runExtraction>[2]),
    (err: EngramError) => err.code === "internal" && /boom/.test(err.message),
  );
  const brain = await s.service.brain(ADMIN);
  assert.deepEqual(
    await s.service.documentsUnder(brain, "/memory/global/facts/"),
    [],
    "the fact written before the failing one went with it",
  );
  const session = await s.storage.sessions.getSession("ses-atomic");
  assert.equal(session!.metadata.extracted_seq, undefined, "the progress mark did not move");

  // Once the bad text is gone, the same run stores both messages' facts and moves the mark.
  s.storage.connection.db.exec("DROP TRIGGER boom");
  const run = await runExtraction(deps, ADMIN, job as Parameters<typeof runExtraction>[2]);
  assert.equal(run.inserted, 2);
  assert.equal((await s.storage.sessions.getSession("ses-atomic"))!.metadata.extracted_seq, 2);
});

Deno.test("memory_extract of a transcript stores the session, the transcript and the job together, or nothing", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  s.storage.connection.db.exec(BOOM_TRIGGER);
  const ports = { service: s.service, sessions: s.storage.sessions, jobs: s.storage.jobs };
  await assert.rejects(
    extract(ports, ADMIN, {
      scope: "global",
      messages: [{ role: "user", content: "BOOM goes the transcript" }],
    }),
    /boom/,
  );
  const db = s.storage.connection.db;
  const count = (table: string) =>
    (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  assert.deepEqual(
    { sessions: count("sessions"), messages: count("messages"), jobs: count("jobs") },
    { sessions: 0, messages: 0, jobs: 0 },
  );
  assert.equal((await s.service.stats(ADMIN, {})).documents, 0);
});

Deno.test("a consolidation pass that fails midway keeps nothing of its writes and frees its lock", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const brain = await s.service.brain(ADMIN);
  // Global facts compile first and succeed; the project summary then fails at its BOOM line.
  const facts = {
    global: { text: "The team uses MySQL.", subject: "team", attribute: "db", value: "MySQL" },
    project: { text: "The BOOM is loud.", subject: "boom", attribute: "volume", value: "loud" },
  };
  for (const [scope, fact] of Object.entries(facts)) {
    for (const sessionId of ["s1", "s2"]) {
      await keepFacts(s.service, [fact], {
        caller: ADMIN,
        brain,
        scope: scope as "global" | "project",
        sessionId,
        provider: "test",
      });
    }
  }
  s.storage.connection.db.exec(BOOM_TRIGGER);
  const settings = { promoteAfterSessions: 2, pruneAfterDays: 30 };
  const deps = { service: s.service, locks: s.storage.locks };
  const before = (await s.service.stats(ADMIN, {})).versions;
  await assert.rejects(consolidate(deps, ADMIN, { dryRun: false, settings }), /boom/);
  assert.equal(
    (await s.service.stats(ADMIN, {})).versions,
    before,
    "no version of the pass stayed",
  );
  assert.equal(await s.service.findLive(brain, { path: "/memory/global/facts.md" }), null);
  assert.equal(
    await s.storage.locks.acquireLock(`consolidate:${brain.id}`, "next", 1000),
    null,
    "the lock was released",
  );
});

Deno.test("a rolled-back unit of work announces no change; a committed one announces after its commit", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const seen: { change: DocumentChange; inTransaction: boolean }[] = [];
  s.service.changes.listen((change) =>
    seen.push({ change, inTransaction: s.storage.connection.db.isTransaction })
  );
  await assert.rejects(
    s.service.atomically(async () => {
      await s.service.remember(ADMIN, { content: "# Kept?\nno", path: "/a.md" });
      throw new Error("changed my mind");
    }),
    /changed my mind/,
  );
  assert.equal(seen.length, 0);
  assert.equal((await s.service.stats(ADMIN, {})).documents, 0);
  await s.service.atomically(async () => {
    await s.service.remember(ADMIN, { content: "# One\nfirst", path: "/one.md" });
    await s.service.remember(ADMIN, { content: "# Two\nsecond", path: "/two.md" });
    assert.equal(seen.length, 0, "nothing is announced before the commit");
  });
  assert.deepEqual(seen.map((x) => [x.change.path, x.inTransaction]), [
    ["/one.md", false],
    ["/two.md", false],
  ]);
});

Deno.test("embedding runs after the commit, never holding the write lock, also inside a unit of work", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const calls: boolean[] = [];
  const embedder: Embedder = {
    name: "probe",
    model: "probe-1",
    embed: (texts) => {
      calls.push(s.storage.connection.db.isTransaction);
      return Promise.resolve(texts.map(() => new Float32Array([1, 0, 0])));
    },
  };
  const service = new MemoryService(s.storage, { embedder });
  const ingest = (name: string, hashDigit: string) =>
    service.ingest(ADMIN, {
      path: `/${name}.md`,
      content: `# ${name}\nwords`,
      sourceHash: hashDigit.repeat(64),
      contentType: "text/markdown",
    });
  const alone = await ingest("alone", "a");
  assert.equal(alone.embedded_count, 1, "outside a unit of work the count is known at once");
  await service.atomically(async () => {
    const inside = await ingest("inside", "b");
    assert.equal(inside.embedded_count, 0, "inside one, embedding waits for the commit");
    assert.equal(calls.length, 1);
  });
  assert.deepEqual(calls, [false, false]);
  const brain = await service.brain(ADMIN);
  const doc = await service.findLive(brain, { path: "/inside.md" });
  assert.equal((await s.storage.vectors.chunksOf(doc!.id)).length, 1);
  assert.deepEqual(
    await s.storage.vectors.chunksWithoutVectors(brain.id, { model: "probe-1", limit: 10 }),
    [],
  );
});

Deno.test("the same large file queued twice at once gets one job and one document id", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const o = await queuedBigFile(dir.path, s.storage.jobs);
  const [a, b] = await Promise.all([
    ingestFile(s.service, ADMIN, o),
    ingestFile(s.service, ADMIN, o),
  ]);
  assert.equal(a.status, "queued");
  assert.equal(b.job_id, a.job_id);
  assert.equal(b.document_id, a.document_id);
  const jobs = s.storage.connection.db.prepare("SELECT count(*) AS n FROM jobs").get() as {
    n: number;
  };
  assert.equal(jobs.n, 1);
});

Deno.test("a reflection whose episode cannot be stored leaves the session open and queues nothing", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const ports = { service: s.service, sessions: s.storage.sessions, jobs: s.storage.jobs };
  await extract(ports, ADMIN, {
    session_id: "ses-reflect",
    scope: "global",
    messages: [
      { role: "user", content: "Deploy the BOOM service to production." },
      { role: "assistant", content: "Deployed the BOOM service; all checks passed." },
    ],
  });
  s.storage.connection.db.exec("DELETE FROM jobs");
  s.storage.connection.db.exec(BOOM_TRIGGER);
  await assert.rejects(
    reflect({ ...ports, model: EXTRACTIVE }, ADMIN, { session_id: "ses-reflect" }),
    /boom/,
  );
  const session = await s.storage.sessions.getSession("ses-reflect");
  assert.equal(session!.ended_at, null);
  assert.equal(session!.metadata.reflection_status, undefined);
  assert.equal(await s.storage.jobs.claimJob(1000), null, "no extraction job was queued");
});

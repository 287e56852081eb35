/**
 * @module The UnitOfWork contract, continued: isolation. A caller outside an open unit never sees
 * its uncommitted writes, never has its own writes taken into it, and two units never interleave.
 */
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import {
  type ContractBackend,
  gate,
  message,
  searchQuery,
  sessionOf,
  settle,
  type Settled,
  valueOf,
  withBrain,
  within,
  yieldTurns,
} from "./backend.ts";
import { ALL, visible, writeAll, type Written } from "./unit_of_work_writes.ts";

/** Registers the isolation cases for `backend` (part of unitOfWorkContract). */
export function unitIsolationCases(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} UnitOfWork: ${name}`, fn);

  test("a reader outside an open unit never sees its uncommitted writes, and completes", async () => {
    await using f = await withBrain(backend);
    for (const ending of ["rollback", "commit"] as const) {
      const tag = `iso-${ending}`;
      const written = gate();
      const release = gate();
      let released = false;
      const unit = settle(f.storage.units.withTransaction(async () => {
        await writeAll(f, tag);
        written.open();
        await release.promise;
        if (ending === "rollback") throw new Error("rolled back on purpose");
      }));
      try {
        await written.promise;
        // Started here, in the test's own context: outside the unit.
        const reads = settle(
          Promise.all([
            f.storage.documents.findDocument(f.brain.id, { path: `/uow/${tag}.md` }),
            f.storage.jobs.findActiveJob("embed", f.brain.id, { path: `/uow/${tag}.md` }),
            f.storage.search.search(searchQuery(f.brain.id, tag)),
          ]).then(([doc, job, hits]) => ({ doc, job, hits, beforeEnd: !released })),
        );
        await yieldTurns();
        released = true;
        release.open();
        assert.equal(
          (await within(unit, "the unit")).ok,
          ending === "commit",
          `the unit should ${ending}`,
        );
        const seen = valueOf(await within(reads, "the outside read"));
        if (ending === "rollback" || seen.beforeEnd) {
          assert.equal(seen.doc, null, `${ending}: the outside read saw an uncommitted document`);
          assert.equal(seen.job, null, `${ending}: the outside read saw an uncommitted job`);
          assert.deepEqual(seen.hits, [], `${ending}: the outside search saw uncommitted chunks`);
        } else {
          // Started before the commit, answered after it: a read that waited for the unit (SQLite
          // in memory) sees all of it; one that answered as last committed but slowly (a network
          // round trip, PostgreSQL) sees none of it. Each read is one or the other, never a part
          // of the unit's rows. docs/architecture.md#postgresql-a-contract-case-that-encodes-sqlite
          const path = `/uow/${tag}.md`;
          assert.ok(seen.doc === null || seen.doc.path === path, "commit: a stray document");
          assert.ok(
            seen.job === null || isDeepStrictEqual(seen.job.payload, { path }),
            "commit: a stray job",
          );
          const hitPaths = seen.hits.map((h) => h.path);
          assert.ok(
            hitPaths.length === 0 || isDeepStrictEqual(hitPaths, [path]),
            `commit: the search saw part of the unit: ${JSON.stringify(hitPaths)}`,
          );
        }
        if (ending === "commit") {
          // A read started after the commit sees all of it, on every backend.
          const path = `/uow/${tag}.md`;
          const doc = await f.storage.documents.findDocument(f.brain.id, { path });
          assert.equal(doc?.path, path, "commit: a read after the commit missed the document");
          const job = await f.storage.jobs.findActiveJob("embed", f.brain.id, { path });
          assert.deepEqual(
            job?.payload,
            { path },
            "commit: a read after the commit missed the job",
          );
          const hits = await f.storage.search.search(searchQuery(f.brain.id, tag));
          assert.deepEqual(hits.map((h) => h.path), [path], "commit: a later search missed it");
        }
      } finally {
        release.open();
        await within(unit, "the unit").catch(() => {});
      }
    }
  });

  test("a write outside an open unit is not taken into it: it survives the unit's rollback", async () => {
    await using f = await withBrain(backend);
    const written = gate();
    const release = gate();
    const unit = settle(f.storage.units.withTransaction(async () => {
      await writeAll(f, "inside");
      written.open();
      await release.promise;
      throw new Error("rolled back on purpose");
    }));
    try {
      await written.promise;
      const outside = settle(
        f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_outside")),
      );
      await yieldTurns();
      release.open();
      const ended = await within(unit, "the unit");
      assert.ok(!ended.ok && /rolled back on purpose/.test(String(ended.error)));
      valueOf(await within(outside, "the outside write"));
      assert.equal((await f.storage.sessions.getSession("ses_outside"))?.id, "ses_outside");
      assert.equal(
        await f.storage.documents.findDocument(f.brain.id, { path: "/uow/inside.md" }),
        null,
      );
    } finally {
      release.open();
      await within(unit, "the unit").catch(() => {});
    }
  });

  test("two concurrent units are serialised: their writes never interleave", async () => {
    await using f = await withBrain(backend);
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_log"));
    const log: string[] = [];
    const step = async (name: string) => {
      await f.storage.sessions.appendMessages("ses_log", [message(name)]);
      log.push(name);
    };
    const aStarted = gate();
    const aRelease = gate();
    const a = settle(f.storage.units.withTransaction(async () => {
      await step("a1");
      aStarted.open();
      await aRelease.promise;
      await step("a2");
    }));
    let b: Promise<Settled<void>> | undefined;
    try {
      await aStarted.promise;
      b = settle(f.storage.units.withTransaction(async () => {
        await step("b1");
        await yieldTurns(1);
        await step("b2");
      }));
      await yieldTurns();
      aRelease.open();
      valueOf(await within(a, "unit a"));
      valueOf(await within(b, "unit b"));
    } finally {
      aRelease.open();
      await Promise.all([a, b ?? null].map((p) => within(Promise.resolve(p), "a unit")))
        .catch(() => {});
    }
    assert.deepEqual(log, ["a1", "a2", "b1", "b2"]);
    const stored = await f.storage.sessions.listMessages("ses_log");
    assert.deepEqual(stored.map((m) => m.content), ["a1", "a2", "b1", "b2"]);
  });

  test("a unit that rolls back does not take a concurrent unit's writes with it", async () => {
    await using f = await withBrain(backend);
    const aStarted = gate();
    const aRelease = gate();
    const a = settle(f.storage.units.withTransaction(async () => {
      await writeAll(f, "a");
      aStarted.open();
      await aRelease.promise;
      throw new Error("a rolls back");
    }));
    let bWrites: Written | undefined;
    let b: Promise<Settled<void>> | undefined;
    try {
      await aStarted.promise;
      b = settle(f.storage.units.withTransaction(async () => {
        bWrites = await writeAll(f, "b");
      }));
      await yieldTurns();
      aRelease.open();
      const ended = await within(a, "unit a");
      assert.ok(!ended.ok && /a rolls back/.test(String(ended.error)));
      valueOf(await within(b, "unit b"));
    } finally {
      aRelease.open();
      await Promise.all([a, b ?? null].map((p) => within(Promise.resolve(p), "a unit")))
        .catch(() => {});
    }
    assert.deepEqual(await visible(f, bWrites!), ALL);
  });
}

/**
 * @module The UnitOfWork contract: writes on several ports commit together or not at all, and
 * hooks run only after the outermost commit. Isolation cases are in unit_of_work_isolation.ts.
 */
import assert from "node:assert/strict";
import { ROLLED_BACK } from "../../../src/core/ports/unit_of_work.ts";
import {
  type ContractBackend,
  newBrain,
  rejectsWith,
  searchQuery,
  sessionOf,
  withBrain,
  writeDoc,
} from "./backend.ts";
import { unitIsolationCases } from "./unit_of_work_isolation.ts";
import { ALL, NONE, visible, writeAll, type Written } from "./unit_of_work_writes.ts";

/** Registers the UnitOfWork cases for `backend`. */
export function unitOfWorkContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} UnitOfWork: ${name}`, fn);

  test("commit: writes on several ports are all there after; fn's value is returned", async () => {
    await using f = await withBrain(backend);
    const result = await f.storage.units.withTransaction(async () => {
      const w = await writeAll(f, "a");
      assert.deepEqual(await visible(f, w), ALL, "a unit reads its own writes");
      const hits = await f.storage.search.search(searchQuery(f.brain.id, "pangolin"));
      assert.deepEqual(hits.map((h) => h.path), [w.path], "its own writes are searchable");
      return w;
    });
    assert.deepEqual(await visible(f, result), ALL);
    assert.equal(await f.storage.sessions.messageCount(result.session), 1);
  });

  test("rollback: when fn throws, none of its writes stay and its error comes out", async () => {
    await using f = await withBrain(backend);
    let w: Written | undefined;
    const thrown = new Error("changed my mind");
    await assert.rejects(
      f.storage.units.withTransaction(async () => {
        w = await writeAll(f, "a");
        await newBrain(f.storage.brains, "phantom");
        throw thrown;
      }),
      (err) => err === thrown,
    );
    assert.deepEqual(await visible(f, w!), NONE);
    assert.equal(await f.storage.brains.findBrain("phantom"), null);
    assert.deepEqual(
      await f.storage.search.search(searchQuery(f.brain.id, "pangolin")),
      [],
    );
    const again = await f.storage.units.withTransaction(() => writeAll(f, "b"));
    assert.deepEqual(await visible(f, again), ALL, "the storage works on after a rollback");
  });

  test("an expected refusal caught inside a unit does not roll it back", async () => {
    await using f = await withBrain(backend);
    const w = await f.storage.units.withTransaction(async () => {
      const w = await writeAll(f, "a");
      await rejectsWith(newBrain(f.storage.brains, "default"), "conflict");
      await rejectsWith(
        f.storage.sessions.createSession(sessionOf(f.brain.id, w.session)),
        "conflict",
      );
      await rejectsWith(
        f.storage.documents.markDeleted(f.brain.id, "doc_missing", "2030-01-02T00:00:00.000Z"),
        "not_found",
      );
      const v2 = await writeDoc(f.storage.documents, f.brain.id, w.path, ["second version"]);
      await rejectsWith(
        f.storage.documents.writeVersion({
          document: v2,
          content: "stale",
          chunks: [],
          links: [],
          expectedVersion: 1,
        }),
        "conflict",
        { cause: "stale-version" },
      );
      return w;
    });
    assert.deepEqual(await visible(f, w), ALL);
    assert.equal(
      (await f.storage.documents.findDocument(f.brain.id, { path: w.path }))?.version,
      2,
    );
  });

  Deno.test({
    name:
      `${backend.name} UnitOfWork: a write failing midway rolls back the whole unit even when fn catches it`,
    ignore: backend.failChunkInserts === undefined,
    async fn() {
      await using f = await withBrain(backend);
      await backend.failChunkInserts!(f.storage, "BOOM");
      let w: Written | undefined;
      let inner: unknown;
      const err = await rejectsWith(
        f.storage.units.withTransaction(async () => {
          w = await writeAll(f, "a");
          try {
            await writeDoc(f.storage.documents, f.brain.id, "/uow/bad.md", ["fine", "BOOM"]);
          } catch (caught) {
            inner = caught;
          }
          return "fn resolved";
        }),
        "internal",
        { cause: ROLLED_BACK },
      );
      assert.ok(inner !== undefined, "the failing write itself rejected");
      assert.ok(err !== inner, "the unit's own error, not the write's");
      assert.deepEqual(await visible(f, w!), NONE);
      assert.equal(
        await f.storage.documents.findDocument(f.brain.id, { path: "/uow/bad.md" }),
        null,
      );
      const again = await f.storage.units.withTransaction(() => writeAll(f, "b"));
      assert.deepEqual(await visible(f, again), ALL, "the storage works on after it");
    },
  });
  if (backend.failChunkInserts === undefined) {
    console.log(
      `${backend.name}: skipping the failing-write unit-of-work case: the backend offers no failChunkInserts`,
    );
  }

  test("afterCommit hooks run after the commit, in order, and see the committed writes", async () => {
    await using f = await withBrain(backend);
    const log: string[] = [];
    let w: Written | undefined;
    await f.storage.units.withTransaction(async (tx) => {
      w = await writeAll(f, "a");
      tx.afterCommit(async () => {
        log.push("first");
        assert.deepEqual(await visible(f, w!), ALL);
      });
      tx.afterCommit(() => {
        log.push("second");
        throw new Error("a failing hook stops nothing");
      });
      tx.afterCommit(() => void log.push("third"));
      log.push("fn done");
    });
    assert.deepEqual(log, ["fn done", "first", "second", "third"]);
  });

  test("afterCommit hooks never run when the unit rolls back", async () => {
    await using f = await withBrain(backend);
    let ran = false;
    await assert.rejects(
      f.storage.units.withTransaction(async (tx) => {
        tx.afterCommit(() => void (ran = true));
        await writeAll(f, "a");
        throw new Error("no");
      }),
      /no/,
    );
    assert.equal(ran, false);
  });

  test("a nested unit joins the outer one: its hooks wait for the outer commit, its writes roll back with it", async () => {
    await using f = await withBrain(backend);
    const log: string[] = [];
    await f.storage.units.withTransaction(async (outer) => {
      outer.afterCommit(() => void log.push("outer hook"));
      await f.storage.units.withTransaction(async (inner) => {
        await writeAll(f, "inner");
        inner.afterCommit(() => void log.push("inner hook"));
      });
      log.push("inner returned");
      await writeAll(f, "outer");
    });
    assert.deepEqual(log, ["inner returned", "outer hook", "inner hook"]);

    let innerWrites: Written | undefined;
    let innerHook = false;
    await assert.rejects(
      f.storage.units.withTransaction(async () => {
        innerWrites = await f.storage.units.withTransaction(async (inner) => {
          inner.afterCommit(() => void (innerHook = true));
          return await writeAll(f, "rolled");
        });
        throw new Error("outer fails after the inner unit returned");
      }),
      /outer fails/,
    );
    assert.deepEqual(await visible(f, innerWrites!), NONE);
    assert.equal(innerHook, false);
  });

  test("an afterCommit hook may open a unit of work of its own", async () => {
    await using f = await withBrain(backend);
    let fromHook: Written | undefined;
    await f.storage.units.withTransaction(async (tx) => {
      await writeAll(f, "a");
      tx.afterCommit(async () => {
        fromHook = await f.storage.units.withTransaction(() => writeAll(f, "from-hook"));
      });
    });
    assert.ok(fromHook);
    assert.deepEqual(await visible(f, fromHook), ALL);
  });

  unitIsolationCases(backend);
}

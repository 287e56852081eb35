/** @module The StorageHealth contract: readiness, what the database holds, and its soundness checks. */
import assert from "node:assert/strict";
import { type ContractBackend, message, sessionOf, withBrain, writeDoc } from "./backend.ts";

/** Registers the StorageHealth cases for `backend`. */
export function storageHealthContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} StorageHealth: ${name}`, fn);

  test("ready answers true; contents counts brains, live documents, all versions and sessions", async () => {
    await using f = await withBrain(backend);
    assert.equal(await f.storage.health.ready(), true);
    const empty = await f.storage.health.contents();
    assert.ok(Number.isInteger(empty.schema_version) && empty.schema_version > 0);
    assert.deepEqual({ ...empty, schema_version: 0 }, {
      schema_version: 0,
      brains: 1,
      documents: 0,
      versions: 0,
      sessions: 0,
    });
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["a"]);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["a2"]);
    const gone = await writeDoc(f.storage.documents, f.brain.id, "/gone.md", ["g"]);
    await f.storage.documents.markDeleted(f.brain.id, gone.id, f.clock.iso());
    const session = await f.storage.sessions.createSession(sessionOf(f.brain.id));
    await f.storage.sessions.appendMessages(session.id, [message("hi")]);
    assert.deepEqual(await f.storage.health.contents(), {
      schema_version: empty.schema_version,
      brains: 1,
      documents: 1,
      versions: 3,
      sessions: 1,
    });
  });

  test("check: a sound database passes the quick and the full checks and stays ready", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["alpha beta"]);
    const quick = await f.storage.health.check({ level: "quick" });
    assert.ok(quick.length > 0);
    assert.deepEqual(quick.filter((c) => c.status !== "ok"), []);
    const full = await f.storage.health.check({ level: "full" });
    assert.ok(full.length > 0);
    assert.deepEqual(full.filter((c) => c.status !== "ok"), []);
    assert.ok(full.every((c) => c.problems.length === 0 && c.name !== ""));
    assert.equal(await f.storage.health.ready(), true);
  });

  test("check: an aborted quick check stops and reports nothing", async () => {
    await using f = await withBrain(backend);
    const stop = new AbortController();
    stop.abort();
    assert.deepEqual(await f.storage.health.check({ level: "quick", signal: stop.signal }), []);
  });
}

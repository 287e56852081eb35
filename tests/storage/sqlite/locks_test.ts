/**
 * @module Locks on SQLite across connections and processes. What a lock does over time (re-entry,
 * expiry, renewal) is the LockStore contract's, on a movable clock (contracts/lock_store.ts).
 */
import assert from "node:assert/strict";
import {
  openSqliteStorage,
  type SqliteStorage,
} from "../../../src/storage/sqlite/sqlite_storage.ts";
import { ROOT } from "../../helpers.ts";
import { lines } from "./_util.ts";
import { openStore } from "./_store.ts";

const TAKER_SCRIPT = new URL("../../fixtures/lock_taker.ts", import.meta.url).pathname;

/** A second connection to the same file: another process, as far as SQLite is concerned. */
function secondStore(file: string): SqliteStorage & Disposable {
  const storage = openSqliteStorage(file);
  return Object.assign(storage, { [Symbol.dispose]: () => storage.close() });
}

Deno.test("locks: a lock held by one connection is refused to another, naming the holder", async () => {
  await using s = await openStore();
  using other = secondStore(s.file);
  const before = new Date().toISOString();
  assert.equal(await s.storage.locks.acquireLock("consolidate", "proc-a", 60_000), null);
  const refused = await other.locks.acquireLock("consolidate", "proc-b", 60_000);
  assert.ok(refused, "the second holder is refused");
  assert.equal(refused.holder, "proc-a");
  assert.ok(refused.acquired_at >= before, refused.acquired_at);
  const ttl = Date.parse(refused.expires_at) - Date.parse(refused.acquired_at);
  assert.equal(ttl, 60_000);
  // Other names are independent.
  assert.equal(await other.locks.acquireLock("something-else", "proc-b", 60_000), null);
});

Deno.test("locks: only the holder releases a lock", async () => {
  await using s = await openStore();
  using other = secondStore(s.file);
  assert.equal(await s.storage.locks.acquireLock("l", "a", 60_000), null);
  await other.locks.releaseLock("l", "b");
  assert.equal(
    (await other.locks.acquireLock("l", "b", 60_000))?.holder,
    "a",
    "b cannot release it",
  );
  await s.storage.locks.releaseLock("l", "a");
  assert.equal(await other.locks.acquireLock("l", "b", 60_000), null, "released: free for b");
});

Deno.test("locks: processes racing for a lock at the same moment, exactly one gets it", async () => {
  await using s = await openStore();
  const goFile = `${s.dir}/go`;
  const takers = ["p0", "p1", "p2", "p3"].map((holder) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-q",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        TAKER_SCRIPT,
        s.file,
        holder,
        goFile,
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    return { holder, child, out: lines(child.stdout) };
  });
  try {
    for (const t of takers) assert.equal((await t.out.next()).value, "ready");
    await Deno.writeTextFile(goFile, "");
    const results = await Promise.all(
      takers.map(async (t) => JSON.parse((await t.out.next()).value as string)),
    );
    const winners = takers.filter((_, i) => results[i] === null).map((t) => t.holder);
    assert.equal(winners.length, 1, JSON.stringify(results));
    for (const r of results) if (r !== null) assert.equal(r.holder, winners[0]);
  } finally {
    // Never leave a taker polling for the go file.
    await Deno.writeTextFile(goFile, "");
    for (const t of takers) {
      await t.out.return(undefined);
      await t.child.status;
    }
  }
});

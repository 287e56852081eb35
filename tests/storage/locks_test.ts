import assert from "node:assert/strict";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/sqlite_storage.ts";
import { ROOT } from "../helpers.ts";
import { lines } from "./_util.ts";
import { openStore, sleep } from "./_store.ts";

const TAKER_SCRIPT = new URL("../fixtures/lock_taker.ts", import.meta.url).pathname;

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

Deno.test("locks: the holder acquiring again extends its lock and keeps acquired_at", async () => {
  await using s = await openStore();
  using other = secondStore(s.file);
  assert.equal(await s.storage.locks.acquireLock("l", "a", 1_000), null);
  const first = (await other.locks.acquireLock("l", "b", 1_000))!;
  await sleep(5);
  assert.equal(
    await s.storage.locks.acquireLock("l", "a", 120_000),
    null,
    "re-entrant for its holder",
  );
  const second = (await other.locks.acquireLock("l", "b", 1_000))!;
  assert.equal(second.holder, "a");
  assert.equal(second.acquired_at, first.acquired_at);
  assert.ok(Date.parse(second.expires_at) - Date.now() > 60_000, second.expires_at);
});

Deno.test("locks: an expired lock is taken over, and its old holder cannot renew it back", async () => {
  await using s = await openStore();
  using other = secondStore(s.file);
  assert.equal(await s.storage.locks.acquireLock("l", "a", 1), null);
  await sleep(10);
  assert.equal(await other.locks.acquireLock("l", "b", 60_000), null, "expired: taken over");
  await s.storage.locks.renewLock("l", "a", 60_000);
  const refused = await s.storage.locks.acquireLock("l", "a", 60_000);
  assert.equal(refused?.holder, "b", "the renewal by the old holder changed nothing");
});

Deno.test("locks: renewLock pushes the expiry out for the holder", async () => {
  await using s = await openStore();
  using other = secondStore(s.file);
  assert.equal(await s.storage.locks.acquireLock("l", "a", 1), null);
  await s.storage.locks.renewLock("l", "a", 60_000);
  await sleep(10);
  const refused = await other.locks.acquireLock("l", "b", 60_000);
  assert.equal(refused?.holder, "a", "renewed before it expired, so still held");
  assert.ok(Date.parse(refused.expires_at) - Date.now() > 30_000, refused.expires_at);
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

/**
 * @module The LockStore contract: named locks with a time to live, re-entrant for their holder,
 * expiring by the storage's clock (the cases move it; nothing sleeps).
 */
import assert from "node:assert/strict";
import { type ContractBackend, withBrain } from "./backend.ts";

/** Registers the LockStore cases for `backend`. */
export function lockStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} LockStore: ${name}`, fn);

  test("a free lock is taken; another holder is refused and told who holds it until when", async () => {
    await using f = await withBrain(backend);
    const locks = f.storage.locks;
    const acquired = f.clock.iso();
    assert.equal(await locks.acquireLock("consolidate", "proc-a", 60_000), null);
    f.clock.advance(5_000);
    assert.deepEqual(await locks.acquireLock("consolidate", "proc-b", 60_000), {
      holder: "proc-a",
      acquired_at: acquired,
      expires_at: new Date(Date.parse(acquired) + 60_000).toISOString(),
    });
    assert.equal(await locks.acquireLock("other-name", "proc-b", 60_000), null, "names differ");
  });

  test("the holder acquiring again extends its lock and keeps acquired_at", async () => {
    await using f = await withBrain(backend);
    const locks = f.storage.locks;
    const acquired = f.clock.iso();
    assert.equal(await locks.acquireLock("l", "a", 10_000), null);
    f.clock.advance(8_000);
    assert.equal(await locks.acquireLock("l", "a", 120_000), null, "re-entrant for its holder");
    const extendedTo = f.clock.iso(120_000);
    f.clock.advance(100_000);
    assert.deepEqual(await locks.acquireLock("l", "b", 1_000), {
      holder: "a",
      acquired_at: acquired,
      expires_at: extendedTo,
    });
  });

  test("an expired lock is taken over; its old holder's renewal does not take it back", async () => {
    await using f = await withBrain(backend);
    const locks = f.storage.locks;
    assert.equal(await locks.acquireLock("l", "a", 10_000), null);
    f.clock.advance(9_000);
    assert.equal((await locks.acquireLock("l", "b", 60_000))?.holder, "a", "not expired yet");
    f.clock.advance(2_000);
    const takeover = f.clock.iso();
    assert.equal(await locks.acquireLock("l", "b", 60_000), null, "expired: taken over");
    await locks.renewLock("l", "a", 600_000);
    const still = await locks.acquireLock("l", "a", 60_000);
    assert.equal(still?.holder, "b", "the old holder's renewal changed nothing");
    f.clock.advance(61_000);
    assert.equal(await locks.acquireLock("l", "c", 60_000), null, "b's lock ran out unrenewed");
    const refused = await locks.acquireLock("l", "a", 60_000);
    assert.equal(refused?.holder, "c");
    assert.notEqual(refused.acquired_at, takeover);
  });

  test("renewLock extends the holder's lock from now; a non-holder's renewal does nothing", async () => {
    await using f = await withBrain(backend);
    const locks = f.storage.locks;
    assert.equal(await locks.acquireLock("l", "a", 10_000), null);
    f.clock.advance(8_000);
    await locks.renewLock("l", "a", 10_000);
    await locks.renewLock("l", "b", 600_000);
    f.clock.advance(8_000);
    const held = await locks.acquireLock("l", "b", 60_000);
    assert.equal(held?.holder, "a", "renewed before it ran out");
    assert.equal(held.expires_at, f.clock.iso(2_000));
    f.clock.advance(3_000);
    assert.equal(await locks.acquireLock("l", "b", 60_000), null, "b's renewal gave b nothing");
  });

  test("only the holder releases a lock; releasing or renewing a free lock is no error", async () => {
    await using f = await withBrain(backend);
    const locks = f.storage.locks;
    await locks.releaseLock("never-held", "a");
    await locks.renewLock("never-held", "a", 1_000);
    assert.equal(await locks.acquireLock("never-held", "b", 1_000), null, "renewal took nothing");
    assert.equal(await locks.acquireLock("l", "a", 60_000), null);
    await locks.releaseLock("l", "b");
    assert.equal((await locks.acquireLock("l", "b", 60_000))?.holder, "a", "b cannot release it");
    await locks.releaseLock("l", "a");
    assert.equal(await locks.acquireLock("l", "b", 60_000), null, "released: free for b");
  });

  test("concurrent acquisitions of one lock: exactly one wins", async () => {
    await using f = await withBrain(backend);
    const holders = ["p0", "p1", "p2", "p3", "p4"];
    const results = await Promise.all(
      holders.map((h) => f.storage.locks.acquireLock("race", h, 60_000)),
    );
    const winners = holders.filter((_, i) => results[i] === null);
    assert.equal(winners.length, 1, JSON.stringify(results));
    for (const r of results) if (r !== null) assert.equal(r.holder, winners[0]);
  });
}

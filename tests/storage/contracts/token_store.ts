/** @module The TokenStore contract: token rows by hash, revoked once, touched with a throttle. */
import assert from "node:assert/strict";
import { type ContractBackend, newBrain, tokenOf, withBrain } from "./backend.ts";

/** Registers the TokenStore cases for `backend`. */
export function tokenStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} TokenStore: ${name}`, fn);

  test("insertToken stores a row found by its hash; listings never carry the hash", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const scoped = tokenOf({ tier: "write", brains: [f.brain.id, other.id], client_id: "a" });
    const all = tokenOf({ tier: "admin", brains: "*", client_id: "b" });
    await f.storage.tokens.insertToken(scoped);
    await f.storage.tokens.insertToken(all);
    assert.deepEqual(await f.storage.tokens.findTokenByHash(scoped.token_hash), scoped);
    assert.deepEqual(await f.storage.tokens.findTokenByHash(all.token_hash), all);
    assert.equal(await f.storage.tokens.findTokenByHash("0".repeat(64)), null);
    const listed = await f.storage.tokens.listTokens();
    const { token_hash: _a, ...scopedRecord } = scoped;
    const { token_hash: _b, ...allRecord } = all;
    assert.deepEqual(listed, [scopedRecord, allRecord]);
    for (const t of listed) assert.ok(!("token_hash" in t), "no hash in a listing");
  });

  test("changing a returned token changes nothing stored", async () => {
    await using f = await withBrain(backend);
    const token = tokenOf({ brains: [f.brain.id] });
    await f.storage.tokens.insertToken(token);
    const attempt = (fn: () => void) => {
      try {
        fn();
      } catch {
        // A frozen record refuses the change, which is as good.
      }
    };
    const found = (await f.storage.tokens.findTokenByHash(token.token_hash))!;
    attempt(() => (found.revoked_at = "2030-01-01T00:00:00.000Z"));
    attempt(() => (found.brains as string[]).push("brn_other"));
    attempt(() => (found.tier = "admin"));
    assert.deepEqual(await f.storage.tokens.findTokenByHash(token.token_hash), token);
  });

  test("listTokens is oldest first, revoked tokens included", async () => {
    await using f = await withBrain(backend);
    const young = tokenOf({ created_at: "2030-01-03T00:00:00.000Z" });
    const old = tokenOf({ created_at: "2030-01-01T00:00:00.000Z" });
    const middle = tokenOf({
      created_at: "2030-01-02T00:00:00.000Z",
      revoked_at: "2030-01-02T01:00:00.000Z",
    });
    for (const t of [young, old, middle]) await f.storage.tokens.insertToken(t);
    assert.deepEqual((await f.storage.tokens.listTokens()).map((t) => t.id), [
      old.id,
      middle.id,
      young.id,
    ]);
  });

  test("revokeToken revokes once: later calls keep the first time; unknown ids are null", async () => {
    await using f = await withBrain(backend);
    const token = tokenOf();
    await f.storage.tokens.insertToken(token);
    // Looked up first, so a cached row would show if the revocation did not reach it.
    assert.equal((await f.storage.tokens.findTokenByHash(token.token_hash))?.revoked_at, null);
    const { token_hash: _, ...record } = token;
    const first = await f.storage.tokens.revokeToken(token.id, "2030-01-02T00:00:00.000Z");
    assert.deepEqual(first, {
      token: { ...record, revoked_at: "2030-01-02T00:00:00.000Z" },
      revokedNow: true,
    });
    const second = await f.storage.tokens.revokeToken(token.id, "2030-01-03T00:00:00.000Z");
    assert.deepEqual(second, { token: first!.token, revokedNow: false });
    assert.equal(
      (await f.storage.tokens.findTokenByHash(token.token_hash))?.revoked_at,
      "2030-01-02T00:00:00.000Z",
      "a revoked token is still found, as revoked",
    );
    assert.equal(
      (await f.storage.tokens.listTokens())[0].revoked_at,
      "2030-01-02T00:00:00.000Z",
    );
    assert.equal(
      await f.storage.tokens.revokeToken("tok_unknown", "2030-01-02T00:00:00.000Z"),
      null,
    );
  });

  test("concurrent revocations of one token: exactly one revokes it", async () => {
    await using f = await withBrain(backend);
    const token = tokenOf();
    await f.storage.tokens.insertToken(token);
    const results = await Promise.all(
      [1, 2, 3, 4].map((d) =>
        f.storage.tokens.revokeToken(token.id, `2030-01-0${d}T00:00:00.000Z`)
      ),
    );
    assert.equal(results.filter((r) => r?.revokedNow).length, 1, JSON.stringify(results));
    const times = new Set(results.map((r) => r?.token.revoked_at));
    assert.equal(times.size, 1, "every caller sees the one revocation time");
  });

  test("touchToken sets last_used_at unless a use later than olderThan is recorded", async () => {
    await using f = await withBrain(backend);
    const token = tokenOf();
    await f.storage.tokens.insertToken(token);
    const lastUsed = async () =>
      (await f.storage.tokens.findTokenByHash(token.token_hash))?.last_used_at;
    await f.storage.tokens.touchToken(token.id, "2030-01-01T10:00:00.000Z", {
      olderThan: "2030-01-01T09:59:00.000Z",
    });
    assert.equal(await lastUsed(), "2030-01-01T10:00:00.000Z", "never used: set");
    await f.storage.tokens.touchToken(token.id, "2030-01-01T10:00:30.000Z", {
      olderThan: "2030-01-01T09:59:30.000Z",
    });
    assert.equal(await lastUsed(), "2030-01-01T10:00:00.000Z", "used within the minute: kept");
    await f.storage.tokens.touchToken(token.id, "2030-01-01T10:01:30.000Z", {
      olderThan: "2030-01-01T10:00:30.000Z",
    });
    assert.equal(await lastUsed(), "2030-01-01T10:01:30.000Z", "last use older: set");
    assert.equal((await f.storage.tokens.listTokens())[0].last_used_at, "2030-01-01T10:01:30.000Z");
    await f.storage.tokens.touchToken("tok_unknown", "2030-01-01T10:02:00.000Z", {
      olderThan: "2030-01-01T10:01:00.000Z",
    });
  });
}

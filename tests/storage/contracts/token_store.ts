/**
 * @module The TokenStore contract: token rows by hash, revoked once, touched with a throttle; an
 * OAuth access token's expiry, audience and client kept, and the client's name in listings.
 */
import assert from "node:assert/strict";
import {
  type ContractBackend,
  EPOCH,
  newBrain,
  oauthClientOf,
  tokenOf,
  withBrain,
} from "./backend.ts";

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
    assert.deepEqual(listed, [
      { ...scopedRecord, oauth_client_name: null },
      { ...allRecord, oauth_client_name: null },
    ]);
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

  test("an OAuth access token keeps its expiry, audience and client; listings add the client's name", async () => {
    await using f = await withBrain(backend);
    // The name is the client's own untrusted text: kept exactly, escaping is the display's job.
    const client = oauthClientOf({ client_name: "Claude \u001b[31m<b>&" });
    await f.storage.oauth.insertClient(client);
    const oauth = tokenOf({
      client_id: client.client_id,
      expires_at: "2030-01-01T01:00:00.000Z",
      audience: "https://memory.example.com/mcp",
      oauth_client_id: client.client_id,
    });
    const plain = tokenOf({ created_at: "2030-01-02T00:00:00.000Z" });
    await f.storage.tokens.insertToken(oauth);
    await f.storage.tokens.insertToken(plain);
    assert.deepEqual(await f.storage.tokens.findTokenByHash(oauth.token_hash), oauth);
    const { token_hash: _, ...record } = oauth;
    assert.deepEqual(await f.storage.tokens.findToken(oauth.id), record);
    const listed = await f.storage.tokens.listTokens();
    assert.deepEqual(listed.map((t) => [t.id, t.oauth_client_id, t.oauth_client_name]), [
      [oauth.id, client.client_id, "Claude \u001b[31m<b>&"],
      [plain.id, null, null],
    ]);
    assert.equal(listed[0].expires_at, "2030-01-01T01:00:00.000Z");
    assert.equal(listed[0].audience, "https://memory.example.com/mcp");
  });

  test("the operator flag is kept on the token that has it and absent from every other", async () => {
    await using f = await withBrain(backend);
    const operator = tokenOf({ tier: "admin", operator: true });
    const plain = tokenOf({ tier: "admin", created_at: "2030-01-02T00:00:00.000Z" });
    await f.storage.tokens.insertToken(operator);
    await f.storage.tokens.insertToken(plain);
    assert.deepEqual(await f.storage.tokens.findTokenByHash(operator.token_hash), operator);
    const { token_hash: _, ...record } = operator;
    assert.deepEqual(await f.storage.tokens.findToken(operator.id), record);
    const found = (await f.storage.tokens.findTokenByHash(plain.token_hash))!;
    assert.ok(!("operator" in found), "no operator key on a token without the flag");
    const listed = await f.storage.tokens.listTokens();
    assert.deepEqual(listed.map((t) => [t.id, t.operator]), [
      [operator.id, true],
      [plain.id, undefined],
    ]);
    const revoked = await f.storage.tokens.revokeToken(operator.id, "2030-01-03T00:00:00.000Z");
    assert.equal(revoked?.token.operator, true, "revoking keeps the flag on the record");
  });

  test("findToken finds a token by id, revoked or not; an unknown id is null", async () => {
    await using f = await withBrain(backend);
    const token = tokenOf({ revoked_at: EPOCH });
    await f.storage.tokens.insertToken(token);
    assert.equal((await f.storage.tokens.findToken(token.id))?.revoked_at, EPOCH);
    assert.ok(!("token_hash" in (await f.storage.tokens.findToken(token.id))!), "never the hash");
    assert.equal(await f.storage.tokens.findToken("tok_unknown"), null);
  });
}

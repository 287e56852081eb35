/**
 * @module The OAuthStore contract: clients, single-use codes, grants whose refresh tokens rotate
 * (a second use is seen, and revoking a grant revokes its access tokens), pairing codes, and the
 * purge of what is dead — every time from the caller, never the database's clock.
 */
import assert from "node:assert/strict";
import type {
  AuthorizationCodeRecord,
  OAuthGrantRecord,
  PairingCodeRecord,
  RefreshTokenRecord,
} from "../../../src/core/ports/oauth_store.ts";
import type { StoredToken } from "../../../src/core/ports/token_store.ts";
import {
  type ContractBackend,
  EPOCH,
  type Fixture,
  oauthClientOf,
  rejectsWith,
  tokenOf,
  uid,
  withBrain,
} from "./backend.ts";

const RESOURCE = "https://memory.example.com/mcp";

/** A random hex "hash" (never a real secret's). */
function hash(): string {
  return crypto.randomUUID().replaceAll("-", "").repeat(2);
}

/** The time `ms` after EPOCH. */
function at(ms: number): string {
  return new Date(Date.parse(EPOCH) + ms).toISOString();
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function codeOf(clientId: string, extra: Partial<AuthorizationCodeRecord> = {}) {
  return {
    code_hash: hash(),
    client_id: clientId,
    redirect_uri: "https://claude.ai/api/mcp/auth_callback",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    resource: RESOURCE,
    tier: "write",
    brains: "*",
    tools: null,
    proof_id: "tok_proof",
    created_at: EPOCH,
    expires_at: at(MIN),
    used_at: null,
    grant_id: null,
    ...extra,
  } satisfies AuthorizationCodeRecord;
}

/** A grant with its first access and refresh token, stored for `clientId` (through a code). */
async function grantFor(
  f: Fixture,
  clientId: string,
  extra: { expiresAt?: string; accessExpiresAt?: string } = {},
): Promise<{ grant: OAuthGrantRecord; access: StoredToken; refresh: RefreshTokenRecord }> {
  const code = codeOf(clientId);
  await f.storage.oauth.insertCode(code);
  await f.storage.oauth.consumeCode(code.code_hash, EPOCH);
  const grant: OAuthGrantRecord = {
    id: uid("grt"),
    client_id: clientId,
    resource: RESOURCE,
    tier: "write",
    brains: [f.brain.id],
    tools: ["memory_search"],
    proof_id: "tok_proof",
    created_at: EPOCH,
    expires_at: extra.expiresAt ?? at(30 * DAY),
    revoked_at: null,
  };
  const access = accessOf(clientId, extra.accessExpiresAt ?? at(HOUR));
  const refresh = refreshOf(grant.id, access.id, grant.expires_at);
  await f.storage.oauth.createGrant({ grant, access, refresh, codeHash: code.code_hash });
  return { grant, access, refresh };
}

function accessOf(clientId: string, expiresAt: string): StoredToken {
  return tokenOf({
    client_id: clientId,
    tier: "write",
    expires_at: expiresAt,
    audience: RESOURCE,
    oauth_client_id: clientId,
  });
}

function refreshOf(grantId: string, accessId: string, expiresAt: string): RefreshTokenRecord {
  return {
    id: uid("rft"),
    token_hash: hash(),
    grant_id: grantId,
    access_token_id: accessId,
    created_at: EPOCH,
    expires_at: expiresAt,
    used_at: null,
  };
}

function pairingOf(extra: Partial<PairingCodeRecord> = {}): PairingCodeRecord {
  return {
    id: uid("pair"),
    code_hash: hash(),
    tier: "read",
    brains: "*",
    created_at: EPOCH,
    expires_at: at(10 * MIN),
    used_at: null,
    ...extra,
  };
}

/** Registers the OAuthStore cases for `backend`. */
export function oauthStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} OAuthStore: ${name}`, fn);

  test("insertClient stores a client found by id; a taken id is a conflict", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf({
      client_name: "\u001b]8;;evil\u0007Name",
      token_endpoint_auth_method: "client_secret_basic",
      secret_hash: hash(),
      redirect_uris: ["https://a.example/cb", "http://127.0.0.1:3000/cb"],
    });
    await f.storage.oauth.insertClient(client);
    assert.deepEqual(await f.storage.oauth.findClient(client.client_id), client);
    assert.equal(await f.storage.oauth.findClient("oac_unknown"), null);
    assert.equal(await f.storage.oauth.countClients(), 1);
    await rejectsWith(f.storage.oauth.insertClient({ ...client, client_name: "x" }), "conflict");
    assert.equal(
      (await f.storage.oauth.findClient(client.client_id))?.client_name,
      client.client_name,
    );
  });

  test("saveMetadataClient adds, then refreshes a document's client, keeping its history; never a registered one", async () => {
    await using f = await withBrain(backend);
    const url = "https://app.example/oauth/client.json";
    const doc = oauthClientOf({
      client_id: url,
      kind: "metadata_document",
      fetched_at: EPOCH,
      grant_types: ["authorization_code"],
    });
    await f.storage.oauth.saveMetadataClient(doc);
    await f.storage.oauth.touchClient(url, at(MIN));
    await f.storage.oauth.saveMetadataClient({
      ...doc,
      client_name: "Renamed",
      redirect_uris: ["https://app.example/cb2"],
      fetched_at: at(2 * MIN),
      created_at: at(2 * MIN),
      last_used_at: null,
    });
    assert.deepEqual(await f.storage.oauth.findClient(url), {
      ...doc,
      client_name: "Renamed",
      redirect_uris: ["https://app.example/cb2"],
      fetched_at: at(2 * MIN),
      last_used_at: at(MIN),
    });
    const registered = oauthClientOf();
    await f.storage.oauth.insertClient(registered);
    await f.storage.oauth.saveMetadataClient({
      ...registered,
      kind: "metadata_document",
      redirect_uris: ["https://evil.example/cb"],
    });
    assert.deepEqual(await f.storage.oauth.findClient(registered.client_id), registered);
  });

  test("touchClient records the latest use and never moves it back", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    await f.storage.oauth.touchClient(client.client_id, at(2 * MIN));
    await f.storage.oauth.touchClient(client.client_id, at(MIN));
    assert.equal((await f.storage.oauth.findClient(client.client_id))?.last_used_at, at(2 * MIN));
    await f.storage.oauth.touchClient("oac_unknown", at(MIN));
  });

  test("listClients: oldest first, live access tokens and grants as of the time given, never a secret", async () => {
    await using f = await withBrain(backend);
    const old = oauthClientOf({
      secret_hash: hash(),
      token_endpoint_auth_method: "client_secret_post",
    });
    const young = oauthClientOf({ created_at: at(DAY) });
    await f.storage.oauth.insertClient(young);
    await f.storage.oauth.insertClient(old);
    await grantFor(f, old.client_id);
    const revoked = await grantFor(f, old.client_id);
    await f.storage.oauth.revokeGrant(revoked.grant.id, at(MIN));
    const listed = await f.storage.oauth.listClients(at(2 * MIN));
    assert.deepEqual(listed.map((c) => [c.client_id, c.access_tokens, c.grants]), [
      [old.client_id, 1, 1],
      [young.client_id, 0, 0],
    ]);
    for (const c of listed) {
      assert.ok(!("secret_hash" in c), "no secret hash in a listing");
      assert.deepEqual(c.redirect_uris, old.redirect_uris);
    }
    const later = await f.storage.oauth.listClients(at(2 * HOUR));
    assert.deepEqual(later.map((c) => [c.access_tokens, c.grants]), [[0, 1], [0, 0]]);
  });

  test("deleteClient removes the client with its codes, grants and tokens; unknown is null", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    const other = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    await f.storage.oauth.insertClient(other);
    const mine = await grantFor(f, client.client_id);
    const theirs = await grantFor(f, other.client_id);
    const pending = codeOf(client.client_id);
    await f.storage.oauth.insertCode(pending);
    // Looked up first, so a cached row would show if the deletion did not reach it.
    assert.ok(await f.storage.tokens.findTokenByHash(mine.access.token_hash));
    assert.deepEqual(await f.storage.oauth.deleteClient(client.client_id), { accessTokens: 1 });
    assert.equal(await f.storage.oauth.findClient(client.client_id), null);
    assert.equal(await f.storage.tokens.findTokenByHash(mine.access.token_hash), null);
    assert.equal(await f.storage.oauth.findGrant(mine.grant.id), null);
    assert.equal(await f.storage.oauth.useRefreshToken(mine.refresh.token_hash, at(MIN)), null);
    assert.equal(await f.storage.oauth.consumeCode(pending.code_hash, at(MIN)), null);
    assert.ok(
      await f.storage.tokens.findTokenByHash(theirs.access.token_hash),
      "others keep theirs",
    );
    assert.equal(await f.storage.oauth.deleteClient(client.client_id), null);
  });

  test("consumeCode: the first use wins, a second is seen as such; unknown is null", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const code = codeOf(client.client_id, { tools: ["memory_*"], brains: [f.brain.id] });
    await f.storage.oauth.insertCode(code);
    assert.deepEqual(await f.storage.oauth.consumeCode(code.code_hash, at(1000)), {
      code: { ...code, used_at: at(1000) },
      first: true,
    });
    assert.deepEqual(await f.storage.oauth.consumeCode(code.code_hash, at(2000)), {
      code: { ...code, used_at: at(1000) },
      first: false,
    });
    assert.equal(await f.storage.oauth.consumeCode(hash(), at(1000)), null);
  });

  test("concurrent exchanges of one code: exactly one is first", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const code = codeOf(client.client_id);
    await f.storage.oauth.insertCode(code);
    const results = await Promise.all(
      [1, 2, 3, 4].map((s) => f.storage.oauth.consumeCode(code.code_hash, at(s * 1000))),
    );
    assert.equal(results.filter((r) => r?.first).length, 1, JSON.stringify(results));
  });

  test("createGrant stores the grant, its access token (with audience and expiry) and refresh token, and links the code", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const { grant, access, refresh } = await grantFor(f, client.client_id);
    assert.deepEqual(await f.storage.oauth.findGrant(grant.id), grant);
    assert.equal(await f.storage.oauth.findGrant("grt_unknown"), null);
    assert.deepEqual(await f.storage.tokens.findTokenByHash(access.token_hash), access);
    const used = await f.storage.oauth.useRefreshToken(refresh.token_hash, at(MIN));
    assert.deepEqual(used, {
      refresh: { ...refresh, used_at: at(MIN) },
      grant,
      first: true,
      revoked: false,
    });
  });

  test("useRefreshToken: the first use wins, concurrent ones see it used; unknown is null", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const { refresh } = await grantFor(f, client.client_id);
    const results = await Promise.all(
      [1, 2, 3].map((s) => f.storage.oauth.useRefreshToken(refresh.token_hash, at(s * 1000))),
    );
    assert.equal(results.filter((r) => r?.first).length, 1, JSON.stringify(results));
    const again = await f.storage.oauth.useRefreshToken(refresh.token_hash, at(HOUR));
    assert.equal(again?.first, false);
    assert.equal(again?.refresh.used_at, results.find((r) => r?.first)?.refresh.used_at);
    assert.equal(await f.storage.oauth.useRefreshToken(hash(), at(MIN)), null);
  });

  test("rotateGrant adds the next tokens and moves the grant's expiry forward only", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const { grant } = await grantFor(f, client.client_id);
    const access = accessOf(client.client_id, at(2 * HOUR));
    const next = refreshOf(grant.id, access.id, at(31 * DAY));
    await f.storage.oauth.rotateGrant({ grantId: grant.id, access, refresh: next });
    assert.deepEqual(await f.storage.tokens.findTokenByHash(access.token_hash), access);
    assert.equal((await f.storage.oauth.findGrant(grant.id))?.expires_at, at(31 * DAY));
    const access2 = accessOf(client.client_id, at(3 * HOUR));
    await f.storage.oauth.rotateGrant({
      grantId: grant.id,
      access: access2,
      refresh: refreshOf(grant.id, access2.id, at(DAY)),
    });
    assert.equal((await f.storage.oauth.findGrant(grant.id))?.expires_at, at(31 * DAY));
    assert.equal((await f.storage.oauth.useRefreshToken(next.token_hash, at(MIN)))?.first, true);
  });

  test("revokeGrant revokes the grant and every access token it issued, once", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const { grant, access, refresh } = await grantFor(f, client.client_id);
    const access2 = accessOf(client.client_id, at(2 * HOUR));
    const next = refreshOf(grant.id, access2.id, at(30 * DAY));
    await f.storage.oauth.rotateGrant({ grantId: grant.id, access: access2, refresh: next });
    const other = await grantFor(f, client.client_id);
    for (const t of [access, access2]) {
      assert.equal((await f.storage.tokens.findTokenByHash(t.token_hash))?.revoked_at, null);
    }
    assert.equal(await f.storage.oauth.revokeGrant(grant.id, at(MIN)), true);
    assert.equal(await f.storage.oauth.revokeGrant(grant.id, at(2 * MIN)), false);
    assert.equal(await f.storage.oauth.revokeGrant("grt_unknown", at(2 * MIN)), false);
    assert.equal((await f.storage.oauth.findGrant(grant.id))?.revoked_at, at(MIN));
    for (const t of [access, access2]) {
      assert.equal((await f.storage.tokens.findTokenByHash(t.token_hash))?.revoked_at, at(MIN));
    }
    assert.equal(
      (await f.storage.oauth.useRefreshToken(refresh.token_hash, at(MIN)))?.revoked,
      true,
    );
    assert.equal(
      (await f.storage.tokens.findTokenByHash(other.access.token_hash))?.revoked_at,
      null,
      "another grant of the client is untouched",
    );
  });

  test("an access token revoked by the operator makes its grant revoked, even once the token is purged", async () => {
    await using f = await withBrain(backend);
    const client = oauthClientOf();
    await f.storage.oauth.insertClient(client);
    const { grant, access, refresh } = await grantFor(f, client.client_id);
    await f.storage.tokens.revokeToken(access.id, at(MIN));
    const second = await f.storage.oauth.useRefreshToken(refresh.token_hash, at(2 * MIN));
    assert.equal(second?.revoked, true);
    assert.equal(second?.first, true);
    await f.storage.oauth.purge({
      now: at(2 * HOUR),
      clientsUnusedBefore: at(-DAY),
      codesExpiredBefore: at(0),
    });
    assert.equal(
      await f.storage.tokens.findTokenByHash(access.token_hash),
      null,
      "expired: purged",
    );
    assert.equal((await f.storage.oauth.findGrant(grant.id))?.revoked_at, at(2 * HOUR));
  });

  test("purge removes stale clients, dead grants, expired refresh and access tokens, old codes and pairing codes", async () => {
    await using f = await withBrain(backend);
    const stale = oauthClientOf({ created_at: at(-40 * DAY) });
    const used = oauthClientOf({ created_at: at(-40 * DAY), last_used_at: at(-DAY) });
    await f.storage.oauth.insertClient(stale);
    await f.storage.oauth.insertClient(used);
    const staleGrant = await grantFor(f, stale.client_id);
    const dead = await grantFor(f, used.client_id, { expiresAt: at(HOUR) });
    const live = await grantFor(f, used.client_id, { accessExpiresAt: at(2 * HOUR) });
    const expiredAccess = await grantFor(f, used.client_id);
    const staticToken = tokenOf({ expires_at: at(MIN) });
    await f.storage.tokens.insertToken(staticToken);
    const oldCode = codeOf(used.client_id, { expires_at: at(-2 * HOUR) });
    const newCode = codeOf(used.client_id, { expires_at: at(-MIN) });
    await f.storage.oauth.insertCode(oldCode);
    await f.storage.oauth.insertCode(newCode);
    const gonePairing = pairingOf({ expires_at: at(HOUR) });
    const keptPairing = pairingOf({ expires_at: at(3 * HOUR) });
    await f.storage.oauth.insertPairingCode(gonePairing);
    await f.storage.oauth.insertPairingCode(keptPairing);
    const purged = await f.storage.oauth.purge({
      now: at(90 * MIN),
      clientsUnusedBefore: at(-30 * DAY),
      codesExpiredBefore: at(-HOUR),
    });
    assert.equal(purged.clients, 1);
    assert.equal(purged.grants, 1, "only the expired grant of a kept client");
    assert.equal(purged.pairingCodes, 1);
    assert.equal(purged.codes, 1);
    assert.equal(await f.storage.oauth.findClient(stale.client_id), null);
    assert.equal(await f.storage.oauth.findGrant(staleGrant.grant.id), null);
    assert.ok(await f.storage.oauth.findClient(used.client_id));
    assert.equal(await f.storage.oauth.findGrant(dead.grant.id), null);
    assert.ok(await f.storage.oauth.findGrant(live.grant.id));
    assert.ok(await f.storage.tokens.findTokenByHash(live.access.token_hash));
    assert.equal(await f.storage.tokens.findTokenByHash(expiredAccess.access.token_hash), null);
    assert.ok(await f.storage.oauth.findGrant(expiredAccess.grant.id), "its grant lives on");
    assert.ok(await f.storage.tokens.findTokenByHash(staticToken.token_hash), "static: kept");
    assert.equal(await f.storage.oauth.consumeCode(oldCode.code_hash, at(0)), null);
    assert.ok(await f.storage.oauth.consumeCode(newCode.code_hash, at(0)));
    assert.equal(await f.storage.oauth.consumePairingCode(gonePairing.code_hash, at(0)), null);
    assert.ok(await f.storage.oauth.consumePairingCode(keptPairing.code_hash, at(0)));
  });

  test("consumePairingCode: once, and only before it expires", async () => {
    await using f = await withBrain(backend);
    const code = pairingOf({ brains: [f.brain.id], tier: "write" });
    const late = pairingOf();
    await f.storage.oauth.insertPairingCode(code);
    await f.storage.oauth.insertPairingCode(late);
    const results = await Promise.all(
      [1, 2, 3].map((s) => f.storage.oauth.consumePairingCode(code.code_hash, at(s * 1000))),
    );
    const won = results.filter((r) => r !== null);
    assert.equal(won.length, 1, JSON.stringify(results));
    assert.deepEqual(won[0], { ...code, used_at: won[0]!.used_at });
    assert.equal(await f.storage.oauth.consumePairingCode(code.code_hash, at(MIN)), null);
    assert.equal(await f.storage.oauth.consumePairingCode(late.code_hash, at(10 * MIN)), null);
    assert.equal(await f.storage.oauth.consumePairingCode(hash(), at(0)), null);
  });
}

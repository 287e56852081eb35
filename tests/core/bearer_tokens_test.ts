import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/core/hash.ts";
import {
  mintToken,
  TOKEN_PATTERN,
  TokenService,
  TOUCH_INTERVAL_MS,
} from "../../src/core/bearer_tokens.ts";
import { openService, tempDir } from "../helpers.ts";

/** A clock the test moves by hand. */
function clock(start = Date.parse("2025-06-01T10:00:00.000Z")) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

async function rejectsWith(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof EngramError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

/** The token with one character at `i` replaced by another base64url character. */
function flip(token: string, i: number): string {
  const c = token[i] === "A" ? "B" : "A";
  return token.slice(0, i) + c + token.slice(i + 1);
}

Deno.test("mintToken: egt_ and 43 base64url characters, never the same twice", () => {
  const a = mintToken();
  const b = mintToken();
  assert.match(a, /^egt_[A-Za-z0-9_-]{43}$/);
  assert.match(a, TOKEN_PATTERN);
  assert.notEqual(a, b);
  // 43 base64url characters are exactly 32 bytes (256 bits) of randomness.
  assert.equal(atob(a.slice(4).replaceAll("-", "+").replaceAll("_", "/") + "=").length, 32);
});

Deno.test("create returns the token once and a record; verify grants client, tier and all brains", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  const { token, record } = await tokens.create({ client: "alice@laptop", tier: "write" });
  assert.match(token, TOKEN_PATTERN);
  assert.match(record.id, /^tok_[0-9A-Z]{26}$/);
  assert.equal(record.client_id, "alice@laptop");
  assert.equal(record.tier, "write");
  assert.equal(record.brains, "*");
  assert.equal(record.prefix, token.slice(4, 12));
  assert.equal(record.last_used_at, null);
  assert.equal(record.revoked_at, null);
  assert.deepEqual(await tokens.verify(token), {
    tokenId: record.id,
    clientId: "alice@laptop",
    tier: "write",
    brains: "*",
  });
});

Deno.test("create --brain stores brain ids (slugs and ids accepted, duplicates dropped)", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const work = await s.service.createBrain({ name: "Work", visibility: "private" });
  const [def] = await s.storage.brains.listBrains();
  const tokens = new TokenService(s.storage);
  const { token, record } = await tokens.create({
    client: "ci",
    tier: "read",
    brains: ["work", work.id, "default"],
  });
  assert.deepEqual(record.brains, [work.id, def.id]);
  assert.deepEqual((await tokens.verify(token))?.brains, [work.id, def.id]);
  assert.deepEqual((await tokens.list())[0].brains, [work.id, def.id]);
});

Deno.test("create with an unknown brain is not_found naming it and engram brains list; nothing stored", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  await rejectsWith(
    tokens.create({ client: "ci", tier: "read", brains: ["default", "nope"] }),
    "not_found",
    /brain "nope" not found.*engram brains list/,
  );
  assert.deepEqual(await tokens.list(), []);
});

for (
  const [what, input, field] of [
    ["an empty client", { client: "", tier: "read" }, /client/],
    ["a client with a space", { client: "a b", tier: "read" }, /client/],
    ["a client of 129 characters", { client: "a".repeat(129), tier: "read" }, /client/],
    ["tier owner", { client: "ci", tier: "owner" }, /tier/],
    ["an empty brain list", { client: "ci", tier: "read", brains: [] }, /brains/],
  ] as const
) {
  Deno.test(`create with ${what} is invalid_argument naming the field`, async () => {
    await using dir = await tempDir();
    using s = await openService(dir.path);
    const tokens = new TokenService(s.storage);
    // deno-lint-ignore no-explicit-any
    await rejectsWith(tokens.create(input as any), "invalid_argument", field);
    assert.deepEqual(await tokens.list(), []);
  });
}

Deno.test("create accepts a client of 128 characters from the whole allowed alphabet", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const client = "aZ0._@-".repeat(19).slice(0, 128);
  const { record } = await new TokenService(s.storage).create({ client, tier: "admin" });
  assert.equal(record.client_id, client);
});

Deno.test("verify: unknown, malformed and one-character-off tokens are null", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  const { token } = await tokens.create({ client: "ci", tier: "read" });
  assert.notEqual(await tokens.verify(token), null, "the real token is accepted");
  const wrong = [
    mintToken(),
    "",
    "egt_",
    token.slice(0, -1),
    token + "A",
    token.slice(4),
    `Bearer ${token}`,
    token.toUpperCase(),
    ` ${token}`,
    flip(token, 4),
    flip(token, 20),
    flip(token, token.length - 1),
  ];
  for (const w of wrong) assert.equal(await tokens.verify(w), null, JSON.stringify(w));
});

Deno.test("revoke: the token stops verifying; list shows revoked_at; revoking again is a conflict", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const c = clock();
  const tokens = new TokenService(s.storage, { now: c.now });
  const keep = await tokens.create({ client: "keep", tier: "read" });
  const gone = await tokens.create({ client: "gone", tier: "admin" });
  c.advance(5_000);
  const revoked = await tokens.revoke(gone.record.id);
  assert.equal(revoked.id, gone.record.id);
  assert.equal(revoked.revoked_at, "2025-06-01T10:00:05.000Z");
  assert.equal(await tokens.verify(gone.token), null);
  assert.notEqual(await tokens.verify(keep.token), null, "other tokens are untouched");
  const listed = await tokens.list();
  assert.deepEqual(listed.map((t) => [t.client_id, t.revoked_at]), [
    ["keep", null],
    ["gone", "2025-06-01T10:00:05.000Z"],
  ]);
  c.advance(5_000);
  await rejectsWith(
    tokens.revoke(gone.record.id),
    "conflict",
    /tok_\w+ was already revoked at 2025-06-01T10:00:05.000Z/,
  );
});

Deno.test("revoke of an unknown id is not_found naming it and engram tokens list", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await rejectsWith(
    new TokenService(s.storage).revoke("tok_NOPE"),
    "not_found",
    /token "tok_NOPE" not found.*engram tokens list/,
  );
});

Deno.test("list: oldest first, records only (no token, no hash)", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const c = clock();
  const tokens = new TokenService(s.storage, { now: c.now });
  const made = [];
  for (const client of ["one", "two", "three"]) {
    made.push(await tokens.create({ client, tier: "read" }));
    c.advance(1);
  }
  const listed = await tokens.list();
  assert.deepEqual(listed.map((t) => t.client_id), ["one", "two", "three"]);
  assert.deepEqual(Object.keys(listed[0]).sort(), [
    "audience",
    "brains",
    "client_id",
    "created_at",
    "expires_at",
    "id",
    "last_used_at",
    "oauth_client_id",
    "oauth_client_name",
    "prefix",
    "revoked_at",
    "tier",
    "tools",
  ]);
  const text = JSON.stringify(listed);
  for (const { token } of made) {
    assert.ok(!text.includes(token.slice(4)), "list leaks a token");
    assert.ok(!text.includes(sha256Hex(token)), "list leaks a hash");
  }
});

Deno.test("at rest only the SHA-256 is stored: the token's bytes are nowhere in the database files", async () => {
  await using dir = await tempDir();
  const minted: string[] = [];
  {
    using s = await openService(dir.path);
    const tokens = new TokenService(s.storage);
    for (let i = 0; i < 3; i++) {
      minted.push((await tokens.create({ client: "c", tier: "read" })).token);
    }
    await tokens.verify(minted[0]);
    // Read while open too: the rows may still sit in the WAL file.
    assertOnlyHashes(await databaseBytes(dir.path), minted);
  }
  assertOnlyHashes(await databaseBytes(dir.path), minted);
});

Deno.test("last_used_at: set on first use, then written at most once a minute", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const c = clock();
  const tokens = new TokenService(s.storage, { now: c.now });
  const { token } = await tokens.create({ client: "ci", tier: "read" });
  const lastUsed = async () => (await tokens.list())[0].last_used_at;
  assert.equal(await lastUsed(), null);

  c.advance(1_000);
  await tokens.verify(token);
  assert.equal(await lastUsed(), "2025-06-01T10:00:01.000Z");

  const writes = countTouches(s.storage.tokens);
  c.advance(TOUCH_INTERVAL_MS - 1);
  for (let i = 0; i < 5; i++) assert.notEqual(await tokens.verify(token), null);
  assert.equal(await lastUsed(), "2025-06-01T10:00:01.000Z", "not rewritten within the minute");
  assert.equal(writes.count, 0, "no write at all within the minute");

  c.advance(1);
  await tokens.verify(token);
  assert.equal(await lastUsed(), "2025-06-01T10:01:01.000Z");
  assert.equal(writes.count, 1);
  writes.restore();
});

Deno.test("last_used_at: a use recorded meanwhile (by another process) is not overwritten", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const { record } = await new TokenService(s.storage).create({ client: "ci", tier: "read" });
  await s.storage.tokens.touchToken(record.id, "2025-06-01T10:01:30.000Z", { olderThan: "9999" });
  // This writer read the row before that use and thinks it is stale: the UPDATE's guard refuses.
  await s.storage.tokens.touchToken(record.id, "2025-06-01T10:01:40.000Z", {
    olderThan: "2025-06-01T10:00:40.000Z",
  });
  assert.equal((await s.storage.tokens.listTokens())[0].last_used_at, "2025-06-01T10:01:30.000Z");
  await s.storage.tokens.touchToken(record.id, "2025-06-01T10:02:31.000Z", {
    olderThan: "2025-06-01T10:01:31.000Z",
  });
  assert.equal((await s.storage.tokens.listTokens())[0].last_used_at, "2025-06-01T10:02:31.000Z");
});

Deno.test("verify of a revoked or unknown token writes nothing", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  const { token, record } = await tokens.create({ client: "ci", tier: "read" });
  await tokens.revoke(record.id);
  const writes = countTouches(s.storage.tokens);
  assert.equal(await tokens.verify(token), null);
  assert.equal(await tokens.verify(mintToken()), null);
  assert.equal(writes.count, 0);
  writes.restore();
  assert.equal((await tokens.list())[0].last_used_at, null);
});

/** Counts calls to the store's touchToken until restored. */
function countTouches(store: { touchToken: (...a: never[]) => Promise<void> }) {
  const original = store.touchToken;
  const counter = {
    count: 0,
    restore: () => {
      store.touchToken = original;
    },
  };
  store.touchToken = (...a: never[]) => {
    counter.count++;
    return original.apply(store, a);
  };
  return counter;
}

async function databaseBytes(dir: string): Promise<string> {
  let all = "";
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.startsWith("engram.db")) {
      all += new TextDecoder("latin1").decode(await Deno.readFile(`${dir}/${e.name}`));
    }
  }
  return all;
}

function assertOnlyHashes(bytes: string, tokens: string[]): void {
  for (const token of tokens) {
    // Found hashes prove these are the right bytes; then the secret must be absent.
    assert.ok(bytes.includes(sha256Hex(token)), "the hash should be stored");
    assert.ok(!bytes.includes(token.slice(4)), "the token's secret is stored in clear");
    assert.ok(!bytes.includes(token.slice(4 + 8)), "the token's undisplayed part is stored");
  }
}

/** Stores an OAuth-style token (as the authorization server does) and returns its secret. */
async function storeBound(
  storage: import("../../src/storage/sqlite/sqlite_storage.ts").SqliteStorage,
  extra: { expires_at: string | null; audience: string | null },
): Promise<string> {
  const token = mintToken();
  await storage.tokens.insertToken({
    id: `tok_${crypto.randomUUID().replaceAll("-", "").slice(0, 26).toUpperCase()}`,
    client_id: "oac_X",
    tier: "write",
    brains: "*",
    tools: null,
    prefix: token.slice(4, 12),
    created_at: "2025-06-01T10:00:00.000Z",
    last_used_at: null,
    revoked_at: null,
    oauth_client_id: null,
    ...extra,
    token_hash: sha256Hex(token),
  });
  return token;
}

Deno.test("verify refuses a token once it expires, by the injected clock", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const c = clock();
  const tokens = new TokenService(s.storage, { now: c.now });
  const token = await storeBound(s.storage, {
    expires_at: "2025-06-01T11:00:00.000Z",
    audience: null,
  });
  assert.equal((await tokens.verify(token))?.tier, "write");
  c.advance(60 * 60_000 - 1);
  assert.ok(await tokens.verify(token), "a millisecond before expiry: accepted");
  c.advance(1);
  assert.equal(await tokens.verify(token), null, "at expiry: refused");
});

Deno.test("verify accepts a token bound to an audience only for that audience", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage, { now: clock().now });
  const mcp = "https://memory.example.com/mcp";
  const bound = await storeBound(s.storage, { expires_at: null, audience: mcp });
  assert.ok(await tokens.verify(bound, { audience: mcp }));
  assert.equal(await tokens.verify(bound, { audience: "https://other.example.com/mcp" }), null);
  assert.equal(await tokens.verify(bound, { audience: `${mcp}/` }), null, "compared exactly");
  assert.equal(await tokens.verify(bound), null, "no audience given: bound tokens are refused");
  const { token: plain } = await tokens.create({ client: "ci", tier: "read" });
  assert.ok(await tokens.verify(plain), "a static token needs no audience");
  assert.ok(await tokens.verify(plain, { audience: mcp }), "and works beside OAuth");
});

Deno.test("create leaves expiry, audience and OAuth client empty; list shows no client name", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  const { record } = await tokens.create({ client: "ci", tier: "read" });
  assert.equal(record.expires_at, null);
  assert.equal(record.audience, null);
  assert.equal(record.oauth_client_id, null);
  assert.deepEqual(await tokens.list(), [{ ...record, oauth_client_name: null }]);
});

Deno.test("the operator flag: an admin token carries it into its grant; other tiers are refused naming the fix", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  const op = await tokens.create({ client: "me", tier: "admin", operator: true });
  assert.equal(op.record.operator, true);
  assert.equal((await tokens.verify(op.token))?.operator, true);
  const plain = await tokens.create({ client: "agent", tier: "admin" });
  assert.ok(!("operator" in plain.record));
  assert.ok(!("operator" in (await tokens.verify(plain.token))!), "a plain admin has no flag");
  assert.deepEqual((await tokens.list()).map((t) => [t.client_id, t.operator]), [
    ["me", true],
    ["agent", undefined],
  ]);
  await rejectsWith(
    tokens.create({ client: "w", tier: "write", operator: true }),
    "invalid_argument",
    /--operator needs --tier admin \(this token would be tier write\).*add --tier admin or leave out --operator/,
  );
  assert.equal((await tokens.list()).length, 2, "nothing stored");
});

Deno.test("the operator flag: a row below admin never grants it, whatever it holds", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const tokens = new TokenService(s.storage);
  const token = mintToken();
  // Written around the service, as no path of engram writes it: a write token with the flag.
  await s.storage.tokens.insertToken({
    id: "tok_ROGUEWRITEOPERATOR0000000",
    client_id: "w",
    tier: "write",
    brains: "*",
    tools: null,
    prefix: token.slice(4, 12),
    created_at: "2025-06-01T10:00:00.000Z",
    last_used_at: null,
    revoked_at: null,
    expires_at: null,
    audience: null,
    oauth_client_id: null,
    operator: true,
    token_hash: sha256Hex(token),
  });
  const grant = await tokens.verify(token);
  assert.equal(grant?.tier, "write");
  assert.ok(!("operator" in grant!));
});

Deno.test("the operator flag: an operator's consent gives an OAuth access token without it", async () => {
  const { authRequest, consent, openServer, publicClient, RESOURCE, REDIRECT, VERIFIER } =
    await import("./oauth/_fixture.ts");
  await using f = await openServer();
  const clientId = await publicClient(f);
  const { token } = await f.tokens.create({ client: "op", tier: "admin", operator: true });
  const code = await consent(f, authRequest(clientId, { scope: "engram:admin" }), token);
  const out = await f.server.token({
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
  });
  const grant = await f.tokens.verify(out.access_token, { audience: RESOURCE });
  assert.equal(grant?.tier, "admin");
  assert.ok(!("operator" in grant!), "an OAuth-issued token is never an operator");
  const listed = (await f.tokens.list()).find((t) => t.id === grant!.tokenId)!;
  assert.ok(!("operator" in listed));
});

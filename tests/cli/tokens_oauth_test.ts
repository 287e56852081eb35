/**
 * @module `engram tokens pair`, `engram tokens clients [remove]` and the OAuth columns of `engram
 * tokens list`, against a database the authorization server wrote in-process.
 */
import assert from "node:assert/strict";
import { TokenService } from "../../src/core/bearer_tokens.ts";
import { ensureDefaultBrain } from "../../src/core/brains.ts";
import { EngramAuthorizationServer } from "../../src/core/oauth/authorization_server.ts";
import { s256Challenge } from "../../src/core/oauth/pkce.ts";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite_storage.ts";
import { runEngram, tempDir } from "../helpers.ts";
import { ANSI, assertFails, assertOk, exists, runJson, STACK_LINE } from "./_util.ts";

const ISSUER = "https://memory.example.com";
const VERIFIER = "k".repeat(43);

/** Opens the CLI's database in-process with an authorization server on it. */
async function withServer<T>(
  dataDir: string,
  fn: (server: EngramAuthorizationServer, tokens: TokenService) => Promise<T>,
): Promise<T> {
  const storage = openSqliteStorage(`${dataDir}/engram.db`);
  try {
    await ensureDefaultBrain(storage.brains);
    const server = new EngramAuthorizationServer(storage, {
      settings: {
        issuer: ISSUER,
        accessTokenTtlMs: 3_600_000,
        refreshTokenTtlMs: 30 * 86_400_000,
        registrationTtlMs: 30 * 86_400_000,
      },
    });
    return await fn(server, new TokenService(storage));
  } finally {
    storage.close();
  }
}

/** Registers a client named `name` and gets it an access token through a consent with `proof`. */
async function connect(
  server: EngramAuthorizationServer,
  name: string,
  proof: string,
): Promise<{ clientId: string; accessToken: string }> {
  const redirect = "https://claude.ai/api/mcp/auth_callback";
  const { client } = await server.register({
    redirect_uris: [redirect, "http://127.0.0.1:8080/cb"],
    client_name: name,
    token_endpoint_auth_method: "none",
  }, { remote: "127.0.0.1" });
  const request = {
    client_id: client.client_id,
    redirect_uri: redirect,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: "S256" as const,
    state: "s",
    resource: `${ISSUER}/mcp`,
    scope: null,
  };
  await server.checkAuthorization(request);
  const grant = await server.proveIdentity(proof);
  assert.ok(grant, "the proof is accepted");
  const code = await server.issueCode(request, grant);
  const out = await server.token({
    grant_type: "authorization_code",
    client_id: client.client_id,
    code,
    code_verifier: VERIFIER,
    redirect_uri: redirect,
  });
  return { clientId: client.client_id, accessToken: out.access_token };
}

Deno.test("tokens pair prints a one-time code (alone on stdout) that the consent page accepts once", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "pair", "--tier", "write", "--brain", "default"], {
    dataDir: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}\n$/);
  assert.match(
    r.stderr,
    /created pairing code pair_\w+ \(tier write, brains: default\), valid until \d\d:\d\d:\d\dZ\. Type it on engram's consent page/,
  );
  assert.doesNotMatch(r.stderr, STACK_LINE);
  const code = r.stdout.trim();
  await withServer(dir.path, async (server) => {
    const grant = await server.proveIdentity(code);
    assert.equal(grant?.tier, "write");
    assert.match(grant!.proofId, /^pair_/);
    assert.equal(await server.proveIdentity(code), null, "once only");
  });
});

Deno.test("tokens pair --json prints { code, id, tier, brains, expires_at }, ten minutes ahead", async () => {
  await using dir = await tempDir();
  const before = Date.now();
  const out = await runJson<Record<string, string>>(
    ["tokens", "pair", "--tier", "read", "--json"],
    {
      dataDir: dir.path,
    },
  );
  assert.deepEqual(Object.keys(out), ["code", "id", "tier", "brains", "expires_at"]);
  assert.equal(out.tier, "read");
  assert.equal(out.brains, "*");
  const ttl = Date.parse(out.expires_at) - before;
  assert.ok(ttl > 9 * 60_000 && ttl <= 10 * 60_000 + 60_000, String(ttl));
});

Deno.test("tokens pair refusals: no --tier (exit 2, nothing created), a bad tier (2), an unknown brain (1)", async () => {
  await using dir = await tempDir();
  const missing = await runEngram(["tokens", "pair"], { dataDir: dir.path });
  assertFails(missing, 2, "missing --tier");
  assert.match(missing.stderr, /usage: engram tokens pair --tier/);
  assert.equal(await exists(`${dir.path}/engram.db`), false, "invalid input opens no database");
  const bad = await runEngram(["tokens", "pair", "--tier", "owner"], { dataDir: dir.path });
  assertFails(bad, 2, /--tier/);
  const brain = await runEngram(["tokens", "pair", "--tier", "read", "--brain", "nope"], {
    dataDir: dir.path,
  });
  assertFails(brain, 1, `brain "nope" not found; list brains with: engram brains list`);
});

Deno.test("tokens clients with none says how clients come; --json is { items: [] }", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "clients"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, /^no OAuth clients; connectors register when engram serve runs/);
  assert.deepEqual(await runJson(["tokens", "clients", "--json"], { dataDir: dir.path }), {
    items: [],
  });
});

Deno.test("tokens clients lists each client with its name escaped, redirect hosts and token counts", async () => {
  await using dir = await tempDir();
  const hostile = "Evil\u001b[2J\nalice  admin\u202e<b>";
  const { clientId } = await withServer(dir.path, async (server, tokens) => {
    const { token } = await tokens.create({ client: "alice", tier: "write" });
    return await connect(server, hostile, token);
  });
  const r = await runEngram(["tokens", "clients"], { dataDir: dir.path });
  assertOk(r);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2, r.stdout);
  assert.match(
    lines[0],
    /^ID\s+NAME\s+KIND\s+REDIRECT HOSTS\s+CREATED\s+LAST USED\s+TOKENS\s+GRANTS$/,
  );
  assert.ok(lines[1].startsWith(clientId), lines[1]);
  assert.ok(lines[1].includes('"Evil\\u001b[2J\\nalice  admin\\u202e<b>"'), lines[1]);
  assert.match(lines[1], /registered\s+claude\.ai,127\.0\.0\.1:8080\s+\d{4}-/);
  assert.match(lines[1], /\s1\s+1$/);
  assert.doesNotMatch(r.stdout, ANSI);
  assert.ok(!r.stdout.includes("\u202e"), "no raw bidi override");

  const { items } = await runJson<{ items: Record<string, unknown>[] }>(
    ["tokens", "clients", "--json"],
    { dataDir: dir.path },
  );
  assert.equal(items.length, 1);
  assert.equal(items[0].client_id, clientId);
  assert.equal(items[0].client_name, hostile, "JSON keeps the name (escaped as JSON)");
  assert.deepEqual(items[0].redirect_hosts, ["claude.ai", "127.0.0.1:8080"]);
  assert.equal(items[0].access_tokens, 1);
  assert.equal(items[0].grants, 1);
  assert.ok(!("secret_hash" in items[0]));
});

Deno.test("tokens list shows an OAuth token's client (escaped) and expiry beside static tokens", async () => {
  await using dir = await tempDir();
  const { clientId } = await withServer(dir.path, async (server, tokens) => {
    const { token } = await tokens.create({ client: "alice", tier: "write" });
    return await connect(server, "Claude\u001b[31m", token);
  });
  const r = await runEngram(["tokens", "list"], { dataDir: dir.path });
  assertOk(r);
  const [, alice, oauth] = r.stdout.trimEnd().split("\n");
  assert.match(
    alice,
    /^tok_\w+\s+alice\s+write\s.*\s-\s+-\s+-$/,
    "a static token: no expiry, no client",
  );
  assert.ok(oauth.includes(clientId), oauth);
  assert.match(oauth, /\d{4}-\d\d-\d\d \S+Z\s+-\s+"Claude\\u001b\[31m"$/);
  const { items } = await runJson<{ items: Record<string, unknown>[] }>(
    ["tokens", "list", "--json"],
    { dataDir: dir.path },
  );
  assert.equal(items[1].oauth_client_id, clientId);
  assert.equal(items[1].oauth_client_name, "Claude\u001b[31m");
  assert.equal(items[1].audience, `${ISSUER}/mcp`);
  assert.ok(typeof items[1].expires_at === "string");
  assert.equal(items[0].expires_at, null);
});

Deno.test("tokens clients remove removes the client and its tokens at once; an unknown id exits 1", async () => {
  await using dir = await tempDir();
  const { clientId, accessToken } = await withServer(dir.path, async (server, tokens) => {
    const { token } = await tokens.create({ client: "alice", tier: "read" });
    return await connect(server, "Claude", token);
  });
  const r = await runEngram(["tokens", "clients", "remove", clientId], { dataDir: dir.path });
  assertOk(r);
  assert.equal(r.stdout, `removed OAuth client "${clientId}" with its grants and 1 access token\n`);
  await withServer(dir.path, async (_, tokens) => {
    assert.equal(await tokens.verify(accessToken, { audience: `${ISSUER}/mcp` }), null);
  });
  const again = await runEngram(["tokens", "clients", "remove", clientId, "--json"], {
    dataDir: dir.path,
  });
  assertFails(
    again,
    1,
    `not_found: OAuth client "${clientId}" not found; list clients with: engram tokens clients`,
  );
  const missing = await runEngram(["tokens", "clients", "remove"], { dataDir: dir.path });
  assertFails(missing, 2, /missing argument[\s\S]*see: engram tokens clients remove --help/);
});

Deno.test("tokens clients remove --json prints { client_id, access_tokens }", async () => {
  await using dir = await tempDir();
  const { clientId } = await withServer(dir.path, async (server, tokens) => {
    const { token } = await tokens.create({ client: "alice", tier: "read" });
    return await connect(server, "Claude", token);
  });
  assert.deepEqual(
    await runJson(["tokens", "clients", "remove", clientId, "--json"], { dataDir: dir.path }),
    { client_id: clientId, access_tokens: 1 },
  );
});

const HELPS: [string[], string][] = [
  [["tokens", "pair", "--help"], "usage: engram tokens pair --tier read|write|admin"],
  [["tokens", "clients", "--help"], "usage: engram tokens clients [--json]"],
  [["tokens", "clients", "remove", "--help"], "usage: engram tokens clients remove CLIENT_ID"],
];
for (const [args, usage] of HELPS) {
  Deno.test(`engram ${args.join(" ")} prints its usage and exits 0`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(args, { dataDir: dir.path });
    assertOk(r);
    assert.ok(r.stdout.includes(usage), r.stdout);
  });
}

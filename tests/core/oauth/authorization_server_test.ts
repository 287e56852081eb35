import assert from "node:assert/strict";
import { MAX_CLIENT_NAME_CHARS } from "../../../src/core/oauth/client_registration.ts";
import { PairingCodes } from "../../../src/core/oauth/pairing_codes.ts";
import {
  authRequest,
  CHALLENGE,
  consent,
  DAY,
  MINUTE,
  openServer,
  publicClient,
  REDIRECT,
  refusedWith,
  RESOURCE,
  staticToken,
  VERIFIER,
} from "./_fixture.ts";

Deno.test("register: a public client gets an oac_ id, no secret, and is stored with its name as given", async () => {
  await using f = await openServer();
  const name = "Claude \u001b[31m<b>";
  const out = await f.server.register({
    redirect_uris: [REDIRECT],
    client_name: name,
    token_endpoint_auth_method: "none",
  }, { remote: "203.0.113.9" });
  assert.match(out.client.client_id, /^oac_[0-9A-Z]{26}$/);
  assert.equal(out.client_secret, undefined);
  assert.equal(out.client_id_issued_at, Date.parse("2030-01-01T00:00:00Z") / 1000);
  assert.deepEqual(out.client, {
    client_id: out.client.client_id,
    client_name: name,
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code"],
    kind: "registered",
    created_at: "2030-01-01T00:00:00.000Z",
    last_used_at: null,
  });
  assert.ok(!("secret_hash" in out.client));
  assert.equal((await f.storage.oauth.findClient(out.client.client_id))?.client_name, name);
});

Deno.test("register: a confidential client gets an egs_ secret once; only its hash is stored", async () => {
  await using f = await openServer();
  const out = await f.server.register({ redirect_uris: [REDIRECT] }, { remote: "x" });
  assert.equal(out.client.token_endpoint_auth_method, "client_secret_basic");
  assert.match(out.client_secret!, /^egs_[A-Za-z0-9_-]{43}$/);
  const stored = await f.storage.oauth.findClient(out.client.client_id);
  assert.match(stored!.secret_hash!, /^[0-9a-f]{64}$/);
  f.storage.close();
  const bytes = new TextDecoder("latin1").decode(await Deno.readFile(f.file));
  assert.ok(!bytes.includes(out.client_secret!.slice(4)), "the secret is not in the database");
});

Deno.test("register refuses bad metadata with the RFC 7591 code", async () => {
  await using f = await openServer();
  await refusedWith(
    f.server.register({ redirect_uris: ["http://app.example/cb"] }, { remote: "x" }),
    "invalid_redirect_uri",
    { message: /must be https, or http on a loopback host/, status: 400 },
  );
  await refusedWith(
    f.server.register({
      redirect_uris: [REDIRECT],
      client_name: "n".repeat(MAX_CLIENT_NAME_CHARS + 1),
    }, { remote: "x" }),
    "invalid_client_metadata",
    { message: /client_name/ },
  );
  assert.equal(await f.storage.oauth.countClients(), 0);
});

Deno.test("a registration unused for registration_ttl expires: refused at /authorize, purged on the next registration", async () => {
  await using f = await openServer();
  const idle = await publicClient(f, "idle");
  const busy = await publicClient(f, "busy");
  f.clock.advance(20 * DAY);
  await f.server.checkAuthorization(authRequest(busy));
  f.clock.advance(11 * DAY);
  await refusedWith(f.server.checkAuthorization(authRequest(idle)), "invalid_client", {
    message: /not registered \(or its registration expired unused\); register it again/,
    redirectable: false,
  });
  assert.ok(await f.server.checkAuthorization(authRequest(busy)), "used 11 days ago: kept");
  f.clock.advance(MINUTE);
  await publicClient(f, "new");
  assert.equal(await f.storage.oauth.findClient(idle), null, "purged");
  assert.equal(await f.storage.oauth.countClients(), 2);
});

Deno.test("checkAuthorization resolves the client and records its use", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  f.clock.advance(MINUTE);
  const client = await f.server.checkAuthorization(authRequest(clientId));
  assert.equal(client.client_id, clientId);
  assert.equal(client.client_name, "Claude");
  assert.equal(
    (await f.storage.oauth.findClient(clientId))?.last_used_at,
    "2030-01-01T00:01:00.000Z",
  );
  // A loopback IP redirect may come back on another port (RFC 8252 §7.3).
  await f.server.checkAuthorization(
    authRequest(clientId, { redirect_uri: "http://127.0.0.1:50123/callback" }),
  );
});

Deno.test("checkAuthorization: an unknown client or unregistered redirect URI is refused on engram's page, never redirected", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  await refusedWith(f.server.checkAuthorization(authRequest("oac_NOPE")), "invalid_client", {
    message: /client "oac_NOPE" is not registered/,
    redirectable: false,
  });
  for (const uri of ["https://evil.example/cb", `${REDIRECT}/`, "http://localhost:1/cb"]) {
    await refusedWith(
      f.server.checkAuthorization(authRequest(clientId, { redirect_uri: uri })),
      "invalid_request",
      { message: /redirect_uri .* is not registered for client oac_/, redirectable: false },
    );
  }
});

Deno.test("checkAuthorization: bad PKCE, no state, or another resource are redirectable errors", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  const cases: [Partial<Parameters<typeof authRequest>[1]>, string, RegExp][] = [
    [{ code_challenge: "short" }, "invalid_request", /code_challenge must be 43/],
    [{ code_challenge: VERIFIER }, "invalid_request", /code_challenge/],
    // deno-lint-ignore no-explicit-any
    [{ code_challenge_method: "plain" as any }, "invalid_request", /must be S256/],
    [{ state: "" }, "invalid_request", /state is required/],
    [
      { resource: "" },
      "invalid_target",
      /resource must be this server's https:\/\/memory\.example\.com\/mcp/,
    ],
    [
      { resource: "https://other.example/mcp" },
      "invalid_target",
      /not "https:\/\/other\.example\/mcp"/,
    ],
    [{ resource: `${RESOURCE}/` }, "invalid_target", /resource/],
  ];
  for (const [extra, code, message] of cases) {
    await refusedWith(
      f.server.checkAuthorization(authRequest(clientId, extra)),
      code as "invalid_request",
      { message, redirectable: true, status: 400 },
    );
  }
});

const DOC_URL = "https://app.example/oauth/client.json";

function documentServer(doc: (url: string) => unknown) {
  const fetched: string[] = [];
  return {
    fetched,
    fetchClientMetadata: (url: string) => {
      fetched.push(url);
      return Promise.resolve(doc(url));
    },
  };
}

Deno.test("a client-ID metadata document is fetched, checked, stored, and reused for five minutes", async () => {
  const docs = documentServer((url) => ({
    client_id: url,
    client_name: "App",
    redirect_uris: [REDIRECT],
  }));
  await using f = await openServer({ fetchClientMetadata: docs.fetchClientMetadata });
  const client = await f.server.checkAuthorization(authRequest(DOC_URL));
  assert.equal(client.kind, "metadata_document");
  assert.equal(client.client_id, DOC_URL);
  assert.equal(client.token_endpoint_auth_method, "none");
  f.clock.advance(4 * MINUTE);
  await f.server.checkAuthorization(authRequest(DOC_URL));
  assert.deepEqual(docs.fetched, [DOC_URL], "cached");
  f.clock.advance(2 * MINUTE);
  await f.server.checkAuthorization(authRequest(DOC_URL));
  assert.deepEqual(docs.fetched, [DOC_URL, DOC_URL], "fetched again");
  const stored = await f.storage.oauth.findClient(DOC_URL);
  assert.equal(stored?.created_at, "2030-01-01T00:00:00.000Z", "kept from the first fetch");
  assert.equal(stored?.last_used_at, "2030-01-01T00:06:00.000Z");
});

Deno.test("a metadata document naming another client_id, a failed fetch, or none allowed: invalid_client", async () => {
  const wrong = documentServer(() => ({
    client_id: "https://evil.example/c.json",
    redirect_uris: [REDIRECT],
  }));
  await using f = await openServer({ fetchClientMetadata: wrong.fetchClientMetadata });
  await refusedWith(f.server.checkAuthorization(authRequest(DOC_URL)), "invalid_client", {
    message: /client metadata document https:\/\/app\.example\/oauth\/client\.json: its client_id/,
    redirectable: false,
  });
  assert.equal(await f.storage.oauth.findClient(DOC_URL), null, "nothing stored");

  await using failing = await openServer({
    fetchClientMetadata: () => Promise.reject(new Error("refused: 10.0.0.5 is a private address")),
  });
  await refusedWith(failing.server.checkAuthorization(authRequest(DOC_URL)), "invalid_client", {
    message:
      /could not fetch the client metadata document https:\/\/app\.example\/oauth\/client\.json: refused: 10\.0\.0\.5 is a private address/,
  });

  await using none = await openServer();
  await refusedWith(none.server.checkAuthorization(authRequest(DOC_URL)), "invalid_client", {
    message: /metadata documents are not accepted by this server; register the client/,
  });
  for (
    const bad of ["http://app.example/c.json", "https://app.example/", "https://app.example/a/../c"]
  ) {
    await refusedWith(f.server.checkAuthorization(authRequest(bad)), "invalid_client", {
      message: /client_id "http/,
      redirectable: false,
    });
  }
  assert.equal(wrong.fetched.length, 1, "a malformed URL is never fetched");
});

Deno.test("proveIdentity: a static token proves its tier, brains and tools; a revoked or OAuth one proves nothing", async () => {
  await using f = await openServer();
  const { token, id } = await staticToken(f, "write", {
    brains: ["default"],
    tools: ["memory_search"],
  });
  assert.deepEqual(await f.server.proveIdentity(` ${token}\n`), {
    tier: "write",
    brains: [f.brain.id],
    proofId: id,
    tools: ["memory_search"],
  });
  await f.tokens.revoke(id);
  assert.equal(await f.server.proveIdentity(token), null);
  assert.equal(await f.server.proveIdentity("egt_" + "A".repeat(43)), null);
  assert.equal(await f.server.proveIdentity(""), null);
  assert.equal(await f.server.proveIdentity("not a token"), null);

  const clientId = await publicClient(f);
  const proof = await staticToken(f, "admin");
  const code = await consent(f, authRequest(clientId), proof.token);
  const issued = await f.server.token({
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
  });
  assert.equal(
    await f.server.proveIdentity(issued.access_token),
    null,
    "an access token is no proof",
  );
});

Deno.test("proveIdentity: a pairing code proves once, within ten minutes, typed forgivingly", async () => {
  await using f = await openServer();
  const pairing = new PairingCodes(f.storage, { now: f.clock.now });
  const a = await pairing.create({ tier: "read", brains: ["default"] });
  assert.deepEqual(await f.server.proveIdentity(a.code.toLowerCase().replaceAll("-", " ")), {
    tier: "read",
    brains: [f.brain.id],
    proofId: a.record.id,
  });
  assert.equal(await f.server.proveIdentity(a.code), null, "used once");
  const b = await pairing.create({ tier: "write" });
  f.clock.advance(10 * MINUTE);
  assert.equal(await f.server.proveIdentity(b.code), null, "expired");
});

Deno.test("issueCode: a proof of read asking for engram:write is invalid_scope, redirectable; no code is stored", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  const { token } = await staticToken(f, "read");
  const request = authRequest(clientId, { scope: "engram:write" });
  await f.server.checkAuthorization(request);
  const grant = (await f.server.proveIdentity(token))!;
  await refusedWith(f.server.issueCode(request, grant), "invalid_scope", {
    message: /asks for tier write, more than the proof allows \(read\)/,
    redirectable: true,
  });
  const { n } = f.storage.connection.db.prepare("SELECT count(*) AS n FROM oauth_codes").get() as {
    n: number;
  };
  assert.equal(n, 0);
});

Deno.test("issueCode checks the posted request again: a tampered redirect URI or resource is refused", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  const { token } = await staticToken(f, "write");
  const grant = (await f.server.proveIdentity(token))!;
  await refusedWith(
    f.server.issueCode(authRequest(clientId, { redirect_uri: "https://evil.example/cb" }), grant),
    "invalid_request",
    { redirectable: false },
  );
  await refusedWith(
    f.server.issueCode(authRequest(clientId, { resource: "https://x.example/mcp" }), grant),
    "invalid_target",
  );
  await refusedWith(
    f.server.issueCode(authRequest(clientId, { code_challenge: "x" }), grant),
    "invalid_request",
  );
});

Deno.test("issueCode: a code is egc_ and 43 characters; a narrower scope narrows the tier", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  const { token } = await staticToken(f, "admin");
  const code = await consent(f, authRequest(clientId, { scope: "openid engram:read" }), token);
  assert.match(code, /^egc_[A-Za-z0-9_-]{43}$/);
  const out = await f.server.token({
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
  });
  assert.equal(out.scope, "engram:read");
  assert.equal((await f.tokens.verify(out.access_token, { audience: RESOURCE }))?.tier, "read");
  assert.equal(CHALLENGE.length, 43);
});

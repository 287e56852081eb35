import assert from "node:assert/strict";
import { TOKEN_PATTERN } from "../../../src/core/bearer_tokens.ts";
import type { TokenRequest } from "../../../src/core/oauth/authorization_types.ts";
import { RegisteredClients } from "../../../src/core/oauth/registered_clients.ts";
import {
  authRequest,
  codeFor,
  consent,
  DAY,
  type Fixture,
  HOUR,
  MINUTE,
  openServer,
  publicClient,
  REDIRECT,
  refusedWith,
  RESOURCE,
  staticToken,
  VERIFIER,
} from "./_fixture.ts";

function exchange(
  clientId: string,
  code: string,
  extra: Partial<Extract<TokenRequest, { grant_type: "authorization_code" }>> = {},
): TokenRequest {
  return {
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
    ...extra,
  };
}

function refresh(clientId: string, token: string, extra: Partial<TokenRequest> = {}): TokenRequest {
  return {
    grant_type: "refresh_token",
    client_id: clientId,
    refresh_token: token,
    ...extra,
  } as TokenRequest;
}

/** Whether the access token still works at this server's /mcp. */
async function works(f: Fixture, accessToken: string): Promise<boolean> {
  return (await f.tokens.verify(accessToken, { audience: RESOURCE })) !== null;
}

Deno.test("code exchange: an egt_ access token bound to /mcp for an hour, an egr_ refresh token, the granted scope", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const out = await f.server.token(exchange(clientId, code, { resource: RESOURCE }));
  assert.match(out.access_token, TOKEN_PATTERN);
  assert.match(out.refresh_token, /^egr_[A-Za-z0-9_-]{43}$/);
  assert.equal(out.token_type, "Bearer");
  assert.equal(out.expires_in, 3600);
  assert.equal(out.scope, "engram:write");
  const grant = await f.tokens.verify(out.access_token, { audience: RESOURCE });
  assert.equal(grant?.tier, "write");
  assert.equal(grant?.clientId, clientId);
  assert.equal(grant?.brains, "*");
  assert.equal(await f.tokens.verify(out.access_token), null, "no audience: refused");
  assert.equal(
    await f.tokens.verify(out.access_token, { audience: "https://other.example/mcp" }),
    null,
    "a token for another audience is refused",
  );
  const listed = (await f.tokens.list()).find((t) => t.oauth_client_id === clientId)!;
  assert.equal(listed.oauth_client_name, "Claude");
  assert.equal(listed.audience, RESOURCE);
  assert.equal(listed.expires_at, "2030-01-01T01:00:00.000Z");
  f.clock.advance(HOUR);
  assert.equal(await works(f, out.access_token), false, "expired after an hour");
});

Deno.test("code exchange carries a static token's brains and tools into the access token", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  const { token } = await staticToken(f, "write", { brains: ["default"], tools: ["memory_*"] });
  const code = await consent(f, authRequest(clientId), token);
  const out = await f.server.token(exchange(clientId, code));
  assert.deepEqual(await f.tokens.verify(out.access_token, { audience: RESOURCE }), {
    tokenId: (await f.tokens.list()).at(-1)!.id,
    clientId,
    tier: "write",
    brains: [f.brain.id],
    tools: ["memory_*"],
  });
});

Deno.test("a code used twice is invalid_grant, and the tokens issued for it are revoked", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const first = await f.server.token(exchange(clientId, code));
  assert.ok(await works(f, first.access_token));
  await refusedWith(f.server.token(exchange(clientId, code)), "invalid_grant", {
    message: /already used; the tokens issued for it are revoked/,
    status: 400,
  });
  assert.equal(await works(f, first.access_token), false);
  await refusedWith(f.server.token(refresh(clientId, first.refresh_token)), "invalid_grant");
});

Deno.test("a wrong code_verifier is invalid_grant and spends the code", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  await refusedWith(
    f.server.token(exchange(clientId, code, { code_verifier: "w".repeat(43) })),
    "invalid_grant",
    { message: /code_verifier does not match the code_challenge/ },
  );
  await refusedWith(f.server.token(exchange(clientId, code)), "invalid_grant", {
    message: /already used/,
  });
});

Deno.test("code exchange refusals: another redirect URI, an expired code, an unknown code, another client's code", async () => {
  await using f = await openServer();
  const a = await codeFor(f);
  await refusedWith(
    f.server.token(
      exchange(a.clientId, a.code, { redirect_uri: "http://127.0.0.1:33418/callback" }),
    ),
    "invalid_grant",
    { message: /redirect_uri is not the one of the authorization request/ },
  );
  const b = await codeFor(f);
  f.clock.advance(MINUTE);
  await refusedWith(f.server.token(exchange(b.clientId, b.code)), "invalid_grant", {
    message: /authorization code expired; authorize again/,
  });
  await refusedWith(
    f.server.token(exchange(b.clientId, "egc_" + "A".repeat(43))),
    "invalid_grant",
    { message: /authorization code is not known/ },
  );
  const c = await codeFor(f);
  const other = await publicClient(f, "other");
  await refusedWith(f.server.token(exchange(other, c.code)), "invalid_grant", {
    message: /issued to another client/,
  });
});

Deno.test("a resource other than this server's /mcp is invalid_target, and the code stays usable", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  await refusedWith(
    f.server.token(exchange(clientId, code, { resource: "https://other.example/mcp" })),
    "invalid_target",
    { message: /resource must be this server's https:\/\/memory\.example\.com\/mcp/ },
  );
  assert.ok(await f.server.token(exchange(clientId, code)), "no resource: the code's own");
});

Deno.test("client authentication: unknown client, a secret from a public client, a method other than registered", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  await refusedWith(f.server.token(exchange("oac_NOPE", code)), "invalid_client", {
    message: /client "oac_NOPE" is not registered/,
    status: 401,
  });
  await refusedWith(
    f.server.token(exchange(clientId, code, { client_secret: "egs_x" })),
    "invalid_client",
    { message: /is public \(none\): it sends no client_secret/, status: 401 },
  );
  await refusedWith(
    f.server.token(exchange(clientId, code, { auth_method: "client_secret_basic" })),
    "invalid_client",
    { message: /authenticates with none, not client_secret_basic/ },
  );
  assert.ok(await f.server.token(exchange(clientId, code)), "the code was not spent");
});

Deno.test("a confidential client must present its secret by the method it registered", async () => {
  await using f = await openServer();
  const reg = await f.server.register({
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "client_secret_post",
  }, { remote: "x" });
  const clientId = reg.client.client_id;
  const { token } = await staticToken(f, "read");
  const code = await consent(f, authRequest(clientId), token);
  await refusedWith(f.server.token(exchange(clientId, code)), "invalid_client", {
    message: /client authentication failed for oac_/,
  });
  await refusedWith(
    f.server.token(exchange(clientId, code, { client_secret: "egs_" + "B".repeat(43) })),
    "invalid_client",
  );
  await refusedWith(
    f.server.token(
      exchange(clientId, code, {
        client_secret: reg.client_secret,
        auth_method: "client_secret_basic",
      }),
    ),
    "invalid_client",
    { message: /authenticates with client_secret_post, not client_secret_basic/ },
  );
  const out = await f.server.token(
    exchange(clientId, code, {
      client_secret: reg.client_secret,
      auth_method: "client_secret_post",
    }),
  );
  assert.equal(out.scope, "engram:read");
});

Deno.test("an unknown grant_type is unsupported_grant_type", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  await refusedWith(
    f.server.token({ grant_type: "password", client_id: clientId } as unknown as TokenRequest),
    "unsupported_grant_type",
    { message: /grant_type "password" is not supported/ },
  );
});

Deno.test("refresh rotates: new tokens each time, the old access token lives out its hour", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const first = await f.server.token(exchange(clientId, code));
  f.clock.advance(50 * MINUTE);
  const second = await f.server.token(
    refresh(clientId, first.refresh_token, { resource: RESOURCE }),
  );
  assert.notEqual(second.access_token, first.access_token);
  assert.notEqual(second.refresh_token, first.refresh_token);
  assert.equal(second.scope, "engram:write");
  assert.ok(await works(f, second.access_token));
  assert.ok(await works(f, first.access_token));
  f.clock.advance(50 * MINUTE);
  assert.equal(await works(f, first.access_token), false);
  const third = await f.server.token(refresh(clientId, second.refresh_token));
  assert.ok(await works(f, third.access_token));
  assert.equal(
    (await f.storage.oauth.findClient(clientId))?.last_used_at,
    "2030-01-01T01:40:00.000Z",
    "each refresh is a use of the client",
  );
});

Deno.test("a reused refresh token revokes its whole grant: every access and refresh token of it", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const first = await f.server.token(exchange(clientId, code));
  const second = await f.server.token(refresh(clientId, first.refresh_token));
  const other = await codeFor(f);
  const unrelated = await f.server.token(exchange(other.clientId, other.code));
  await refusedWith(f.server.token(refresh(clientId, first.refresh_token)), "invalid_grant", {
    message: /already used: every token of its grant is revoked/,
  });
  assert.equal(await works(f, first.access_token), false);
  assert.equal(await works(f, second.access_token), false);
  await refusedWith(f.server.token(refresh(clientId, second.refresh_token)), "invalid_grant", {
    message: /grant was revoked; authorize again/,
  });
  assert.ok(await works(f, unrelated.access_token), "another grant is untouched");
});

Deno.test("refresh refusals: another client's token, an expired one, an unknown one", async () => {
  await using f = await openServer();
  const a = await codeFor(f);
  const first = await f.server.token(exchange(a.clientId, a.code));
  const thief = await publicClient(f, "thief");
  await refusedWith(f.server.token(refresh(thief, first.refresh_token)), "invalid_grant", {
    message: /issued to another client; its grant is revoked/,
  });
  assert.equal(await works(f, first.access_token), false);

  const b = await codeFor(f);
  const old = await f.server.token(exchange(b.clientId, b.code));
  f.clock.advance(20 * DAY);
  await f.server.checkAuthorization(authRequest(b.clientId));
  f.clock.advance(10 * DAY);
  await refusedWith(f.server.token(refresh(b.clientId, old.refresh_token)), "invalid_grant", {
    message: /not known|expired/,
  });
  await refusedWith(
    f.server.token(refresh(b.clientId, "egr_" + "C".repeat(43))),
    "invalid_grant",
    { message: /refresh token is not known/ },
  );
});

Deno.test("revoking an OAuth access token with engram tokens revoke ends its grant", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const out = await f.server.token(exchange(clientId, code));
  const id = (await f.tokens.list()).find((t) => t.oauth_client_id === clientId)!.id;
  await f.tokens.revoke(id);
  assert.equal(await works(f, out.access_token), false);
  await refusedWith(f.server.token(refresh(clientId, out.refresh_token)), "invalid_grant", {
    message: /grant was revoked/,
  });
});

Deno.test("revoking the engram token that allowed a grant ends the grant at its next refresh", async () => {
  await using f = await openServer();
  const clientId = await publicClient(f);
  const proof = await staticToken(f, "write");
  const code = await consent(f, authRequest(clientId), proof.token);
  const out = await f.server.token(exchange(clientId, code));
  await f.tokens.revoke(proof.id);
  await refusedWith(f.server.token(refresh(clientId, out.refresh_token)), "invalid_grant", {
    message: /engram token that allowed this grant was revoked/,
  });
  assert.equal(await works(f, out.access_token), false);
});

Deno.test("refresh with a wider scope is invalid_scope and leaves the refresh token usable; a narrower one narrows", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const out = await f.server.token(exchange(clientId, code));
  await refusedWith(
    f.server.token(refresh(clientId, out.refresh_token, { scope: "engram:admin" })),
    "invalid_scope",
    { message: /asks for tier admin, more than this grant's write/ },
  );
  const narrow = await f.server.token(
    refresh(clientId, out.refresh_token, { scope: "engram:read" }),
  );
  assert.equal(narrow.scope, "engram:read");
  assert.equal((await f.tokens.verify(narrow.access_token, { audience: RESOURCE }))?.tier, "read");
  const again = await f.server.token(refresh(clientId, narrow.refresh_token));
  assert.equal(again.scope, "engram:write", "the grant keeps its tier");
});

Deno.test("removing a client (engram tokens clients remove) ends its tokens at once", async () => {
  await using f = await openServer();
  const { clientId, code } = await codeFor(f);
  const out = await f.server.token(exchange(clientId, code));
  assert.ok(await works(f, out.access_token));
  const clients = new RegisteredClients(f.storage, { now: f.clock.now });
  assert.deepEqual(
    (await clients.list()).map((c) => [c.client_id, c.access_tokens, c.grants]),
    [[clientId, 1, 1]],
  );
  assert.deepEqual(await clients.remove(clientId), { accessTokens: 1 });
  assert.equal(await works(f, out.access_token), false);
  await refusedWith(f.server.token(refresh(clientId, out.refresh_token)), "invalid_client");
  await assert.rejects(
    clients.remove(clientId),
    /OAuth client "oac_\w+" not found; list clients with: engram tokens clients/,
  );
});

Deno.test("no code, token, verifier or secret appears in any refusal's message", async () => {
  await using f = await openServer();
  const reg = await f.server.register({ redirect_uris: [REDIRECT] }, { remote: "x" });
  const { token } = await staticToken(f, "write");
  const code = await consent(f, authRequest(reg.client.client_id), token);
  const secrets = [token, code, VERIFIER, reg.client_secret!];
  const messages: string[] = [];
  const collect = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      messages.push((err as Error).message);
    }
  };
  const id = reg.client.client_id;
  await collect(f.server.token(exchange(id, code, { client_secret: reg.client_secret + "x" })));
  await collect(
    f.server.token(
      exchange(id, code, { client_secret: reg.client_secret, code_verifier: VERIFIER + "x" }),
    ),
  );
  await collect(f.server.token(exchange(id, code, { client_secret: reg.client_secret })));
  const out = await codeFor(f);
  const issued = await f.server.token(exchange(out.clientId, out.code));
  secrets.push(out.code, issued.access_token, issued.refresh_token);
  await f.server.token(refresh(out.clientId, issued.refresh_token));
  await collect(f.server.token(refresh(out.clientId, issued.refresh_token)));
  await collect(
    f.server.token(refresh(out.clientId, issued.refresh_token, { scope: "engram:admin" })),
  );
  assert.ok(messages.length >= 5, messages.join("\n"));
  for (const message of messages) {
    for (const secret of secrets) {
      assert.ok(!message.includes(secret.slice(4, 20)), `a secret in: ${message}`);
    }
  }
});

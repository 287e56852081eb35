/**
 * @module `/token` and what its tokens open (docs/connectors.md#endpoints): the code exchanged once
 * with its verifier and redirect URI, client authentication by each method, refresh with rotation
 * and reuse detection, RFC 6749 §5.2 errors that are never cached, and access tokens accepted at
 * /mcp only before they expire and only for this server's resource — seeing the same tools as a
 * static token of the same tier.
 */
import assert from "node:assert/strict";
import {
  authorizeQuery,
  codeFor,
  exchange,
  ISSUER,
  openConsent,
  postConsent,
  REDIRECT,
  redirectParams,
  register,
  RESOURCE,
  startOAuthApp,
  staticToken,
  tokenRequest,
  VERIFIER,
} from "./_oauth_app.ts";
import { connectHttp } from "../http_helpers.ts";

async function mcpStatus(
  url: string,
  token: string,
): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get("www-authenticate") };
}

Deno.test("a code is exchanged for a bearer access token bound to /mcp and a refresh token; the answer is never cached", async () => {
  await using app = await startOAuthApp();
  const { clientId, code } = await codeFor(app, { tier: "write" });
  const { res, body } = await exchange(app.url, clientId, code);
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("pragma"), "no-cache");
  assert.equal(body.token_type, "Bearer");
  assert.equal(body.expires_in, 3600);
  assert.equal(body.scope, "engram:write");
  assert.match(body.access_token as string, /^egt_/);
  assert.match(body.refresh_token as string, /^egr_/);
  assert.equal((await mcpStatus(app.url, body.access_token as string)).status, 200);
});

Deno.test("a code used twice is invalid_grant, and the tokens of its first use are revoked", async () => {
  await using app = await startOAuthApp();
  const { clientId, code } = await codeFor(app);
  const first = await exchange(app.url, clientId, code);
  assert.equal(first.res.status, 200);
  const second = await exchange(app.url, clientId, code);
  assert.equal(second.res.status, 400);
  assert.equal(second.body.error, "invalid_grant");
  assert.match(
    second.body.error_description as string,
    /already used; the tokens issued for it are revoked/,
  );
  assert.equal(second.res.headers.get("cache-control"), "no-store");
  assert.equal((await mcpStatus(app.url, first.body.access_token as string)).status, 401);
});

Deno.test("a wrong code_verifier, another redirect_uri, another resource or an expired code is refused by name", async () => {
  await using app = await startOAuthApp();
  const cases: [Record<string, string>, string, RegExp][] = [
    [
      { code_verifier: "x".repeat(43) },
      "invalid_grant",
      /code_verifier does not match the code_challenge/,
    ],
    [
      { redirect_uri: "https://claude.ai/other_callback" },
      "invalid_grant",
      /redirect_uri is not the one of the authorization request/,
    ],
    [{ resource: "https://other.example/mcp" }, "invalid_target", /resource must be this server's/],
  ];
  for (const [extra, error, description] of cases) {
    const { clientId, code } = await codeFor(app);
    const { res, body } = await exchange(app.url, clientId, code, extra);
    assert.equal(res.status, 400, JSON.stringify(extra));
    assert.equal(body.error, error);
    assert.match(body.error_description as string, description);
  }
  const { clientId, code } = await codeFor(app);
  app.clock.ms += 61_000;
  const late = await exchange(app.url, clientId, code);
  assert.equal(late.body.error, "invalid_grant");
  assert.match(late.body.error_description as string, /expired/);
});

Deno.test("malformed token requests: form encoding, grant type, missing fields, repeated fields, no client", async () => {
  await using app = await startOAuthApp();
  const json = await fetch(`${app.url}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  assert.equal(json.status, 400);
  assert.equal(
    (await json.json()).error_description,
    "the token request must be application/x-www-form-urlencoded",
  );
  const cases: [Record<string, string>, number, string, RegExp][] = [
    [
      { client_id: "c", grant_type: "password" },
      400,
      "unsupported_grant_type",
      /authorization_code or refresh_token/,
    ],
    [{ client_id: "c" }, 400, "invalid_request", /grant_type is missing/],
    [
      { client_id: "c", grant_type: "authorization_code", code: "x" },
      400,
      "invalid_request",
      /missing or malformed: code_verifier, redirect_uri/,
    ],
    [
      { grant_type: "refresh_token", refresh_token: "x" },
      401,
      "invalid_client",
      /client_id is missing/,
    ],
    [
      { client_id: "oac_nobody", grant_type: "refresh_token", refresh_token: "x" },
      401,
      "invalid_client",
      /is not registered/,
    ],
  ];
  for (const [form, status, error, description] of cases) {
    const { res, body } = await tokenRequest(app.url, form);
    assert.equal(res.status, status, JSON.stringify(form));
    assert.equal(body.error, error);
    assert.match(body.error_description as string, description);
  }
  const twice = await fetch(`${app.url}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "client_id=a&client_id=b&grant_type=refresh_token",
  });
  assert.equal((await twice.json()).error_description, "the parameter client_id was given twice");
});

Deno.test("confidential clients authenticate as they registered: Basic or a secret in the body; a wrong one is 401 invalid_client", async () => {
  await using app = await startOAuthApp();
  for (const method of ["client_secret_basic", "client_secret_post"] as const) {
    const { body: reg } = await register(app.url, {
      client_name: method,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: method,
    });
    const clientId = reg.client_id as string;
    const secret = reg.client_secret as string;
    const form = await openConsent(app.url, authorizeQuery(clientId));
    const code = redirectParams(
      await postConsent(app.url, form, {
        token: await staticToken(app, "read"),
        decision: "allow",
      }),
    ).get("code")!;
    const grant = {
      grant_type: "authorization_code",
      code,
      code_verifier: VERIFIER,
      redirect_uri: REDIRECT,
      resource: RESOURCE,
    };
    const basic = (s: string) => ({
      Authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(s)}`)}`,
    });
    const wrong = method === "client_secret_basic"
      ? await tokenRequest(app.url, grant, basic("egs_wrong"))
      : await tokenRequest(app.url, { ...grant, client_id: clientId, client_secret: "egs_wrong" });
    assert.equal(wrong.res.status, 401, method);
    assert.equal(wrong.body.error, "invalid_client");
    if (method === "client_secret_basic") {
      assert.equal(wrong.res.headers.get("www-authenticate"), 'Basic realm="engram"');
    }
    // The other method than registered is refused too.
    const other = method === "client_secret_basic"
      ? await tokenRequest(app.url, { ...grant, client_id: clientId, client_secret: secret })
      : await tokenRequest(app.url, grant, basic(secret));
    assert.equal(other.body.error, "invalid_client", `${method}: ${other.body.error_description}`);
    assert.match(
      other.body.error_description as string,
      new RegExp(`authenticates with ${method}`),
    );
    // A wrong secret consumed nothing: the right one still exchanges the code.
    const right = method === "client_secret_basic"
      ? await tokenRequest(app.url, grant, basic(secret))
      : await tokenRequest(app.url, { ...grant, client_id: clientId, client_secret: secret });
    assert.equal(right.res.status, 200, `${method}: ${JSON.stringify(right.body)}`);
  }
  const garbled = await tokenRequest(app.url, { grant_type: "refresh_token", refresh_token: "x" }, {
    Authorization: "Basic !!!",
  });
  assert.equal(garbled.res.status, 401);
  assert.match(garbled.body.error_description as string, /must be HTTP Basic/);
});

Deno.test("refresh rotates; reusing a refresh token revokes the whole family, access tokens included", async () => {
  await using app = await startOAuthApp();
  const { clientId, code } = await codeFor(app);
  const first = (await exchange(app.url, clientId, code)).body;
  const refresh = (token: string) =>
    tokenRequest(app.url, {
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: clientId,
      resource: RESOURCE,
    });
  const second = await refresh(first.refresh_token as string);
  assert.equal(second.res.status, 200, JSON.stringify(second.body));
  assert.notEqual(second.body.refresh_token, first.refresh_token);
  assert.notEqual(second.body.access_token, first.access_token);
  assert.equal((await mcpStatus(app.url, second.body.access_token as string)).status, 200);
  const reused = await refresh(first.refresh_token as string);
  assert.equal(reused.res.status, 400);
  assert.equal(reused.body.error, "invalid_grant");
  assert.match(
    reused.body.error_description as string,
    /already used: every token of its grant is revoked/,
  );
  assert.equal((await mcpStatus(app.url, second.body.access_token as string)).status, 401);
  assert.equal((await refresh(second.body.refresh_token as string)).body.error, "invalid_grant");
});

Deno.test("an access token expires after access_token_ttl_ms and is refused with invalid_token", async () => {
  await using app = await startOAuthApp({
    settings: { oauth: { access_token_ttl_ms: 120_000 } as never },
  });
  const { clientId, code } = await codeFor(app);
  const { body } = await exchange(app.url, clientId, code);
  assert.equal(body.expires_in, 120);
  assert.equal((await mcpStatus(app.url, body.access_token as string)).status, 200);
  app.clock.ms += 121_000;
  const late = await mcpStatus(app.url, body.access_token as string);
  assert.equal(late.status, 401);
  assert.match(late.challenge!, /error="invalid_token"/);
});

Deno.test("a token issued for another server's resource is refused here (audience); static tokens work on both", async () => {
  await using a = await startOAuthApp();
  await using b = await startOAuthApp({
    storage: a.storage,
    clock: a.clock,
    settings: { public_url: "https://other.example.com" },
  });
  const { clientId, code } = await codeFor(a);
  const { body } = await exchange(a.url, clientId, code);
  assert.equal((await mcpStatus(a.url, body.access_token as string)).status, 200);
  const there = await mcpStatus(b.url, body.access_token as string);
  assert.equal(there.status, 401);
  assert.match(
    there.challenge!,
    /error="invalid_token", resource_metadata="https:\/\/other\.example\.com\//,
  );
  const fixed = await staticToken(a, "read");
  assert.equal((await mcpStatus(a.url, fixed)).status, 200);
  assert.equal((await mcpStatus(b.url, fixed)).status, 200);
});

Deno.test("an access token cannot prove a consent: only static tokens and pairing codes do", async () => {
  await using app = await startOAuthApp();
  const { clientId, code } = await codeFor(app, { tier: "admin" });
  const { body } = await exchange(app.url, clientId, code);
  const form = await openConsent(app.url, authorizeQuery(clientId));
  const res = await postConsent(app.url, form, {
    token: body.access_token as string,
    decision: "allow",
  });
  assert.equal(res.status, 403);
  assert.match(await res.text(), /not a live engram token/);
});

Deno.test("an OAuth token and a static token of the same tier list the same tools", async () => {
  await using app = await startOAuthApp();
  for (const tier of ["read", "write", "admin"] as const) {
    const { clientId, code } = await codeFor(app, { tier });
    const oauthToken = (await exchange(app.url, clientId, code)).body.access_token as string;
    const fixed = await staticToken(app, tier);
    const names = async (token: string) => {
      await using client = await connectHttp(`${app.url}/mcp`, token);
      return (await client.listTools()).tools.map((t) => t.name).sort();
    };
    const [viaOAuth, viaStatic] = [await names(oauthToken), await names(fixed)];
    assert.ok(viaOAuth.length > 0);
    assert.deepEqual(viaOAuth, viaStatic, tier);
  }
});

Deno.test("the issuer is announced in the token's WWW-Authenticate challenge chain: /mcp without a token points at the metadata", async () => {
  await using app = await startOAuthApp();
  const res = await fetch(`${app.url}/mcp`, { method: "POST" });
  await res.body?.cancel();
  assert.equal(res.status, 401);
  assert.equal(
    res.headers.get("www-authenticate"),
    `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource"`,
  );
});

Deno.test("no refusal echoes the code, verifier, refresh token or client secret it was given", async () => {
  await using app = await startOAuthApp();
  const { body: reg } = await register(app.url, {
    client_name: "c",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "client_secret_post",
  });
  const secret = reg.client_secret as string;
  const clientId = reg.client_id as string;
  const form = await openConsent(app.url, authorizeQuery(clientId));
  const code = redirectParams(
    await postConsent(app.url, form, { token: await staticToken(app, "read"), decision: "allow" }),
  ).get("code")!;
  const bodies: string[] = [];
  const attempt = async (extra: Record<string, string>) => {
    const { body } = await tokenRequest(app.url, {
      grant_type: "authorization_code",
      code,
      code_verifier: VERIFIER,
      redirect_uri: REDIRECT,
      client_id: clientId,
      client_secret: secret,
      ...extra,
    });
    bodies.push(JSON.stringify(body));
  };
  await attempt({ client_secret: `${secret}x` });
  await attempt({ code_verifier: `${VERIFIER}x` });
  await attempt({});
  const refresh = "egr_" + "r".repeat(43);
  const r = await tokenRequest(app.url, {
    grant_type: "refresh_token",
    refresh_token: refresh,
    client_id: clientId,
    client_secret: secret,
  });
  bodies.push(JSON.stringify(r.body));
  assert.equal(r.body.error, "invalid_grant");
  for (const body of bodies) {
    for (const s of [code, VERIFIER, secret, `${secret}x`, `${VERIFIER}x`, refresh]) {
      assert.ok(!body.includes(s), `${body} echoes a secret`);
    }
  }
});

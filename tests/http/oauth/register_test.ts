/**
 * @module `/register` (RFC 7591; docs/connectors.md#endpoints): a public or confidential client
 * registered, refusals with RFC 7591 error codes, and the per-address rate limit, which believes
 * X-Forwarded-For only from a peer in server.trusted_proxies.
 */
import assert from "node:assert/strict";
import { OAUTH_RATE_LIMITS } from "../../../src/http/oauth/oauth_endpoints.ts";
import { REDIRECT, register, startOAuthApp } from "./_oauth_app.ts";

const PUBLIC = {
  client_name: "Claude",
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: "none",
};

Deno.test("a public client registers: 201 with its id, its metadata back, no secret, never cached", async () => {
  await using app = await startOAuthApp();
  const { res, body } = await register(app.url, PUBLIC);
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.match(body.client_id as string, /^oac_/);
  assert.equal(body.client_secret, undefined);
  assert.equal(body.client_name, "Claude");
  assert.deepEqual(body.redirect_uris, [REDIRECT]);
  assert.equal(body.token_endpoint_auth_method, "none");
  assert.deepEqual(body.grant_types, ["authorization_code", "refresh_token"]);
  assert.equal(typeof body.client_id_issued_at, "number");
});

Deno.test("a confidential client gets its secret once, with client_secret_expires_at 0", async () => {
  await using app = await startOAuthApp();
  const { res, body } = await register(app.url, {
    ...PUBLIC,
    token_endpoint_auth_method: "client_secret_basic",
  });
  assert.equal(res.status, 201);
  assert.match(body.client_secret as string, /^egs_/);
  assert.equal(body.client_secret_expires_at, 0);
});

Deno.test("registration refusals: a redirect URI that is neither https nor loopback http, bad metadata, not JSON, too big", async () => {
  await using app = await startOAuthApp();
  const http = await register(app.url, { ...PUBLIC, redirect_uris: ["http://claude.example/cb"] });
  assert.equal(http.res.status, 400);
  assert.equal(http.body.error, "invalid_redirect_uri");
  assert.match(http.body.error_description as string, /must be https, or http on a loopback host/);
  const none = await register(app.url, { client_name: "x" });
  assert.equal(none.res.status, 400);
  assert.equal(none.body.error, "invalid_redirect_uri");
  const method = await register(app.url, {
    ...PUBLIC,
    token_endpoint_auth_method: "private_key_jwt",
  });
  assert.equal(method.body.error, "invalid_client_metadata");
  const text = await fetch(`${app.url}/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{not json",
  });
  assert.equal(text.status, 400);
  assert.deepEqual(await text.json(), {
    error: "invalid_client_metadata",
    error_description: "the registration is not JSON",
  });
  const form = await fetch(`${app.url}/register`, { method: "POST", body: "a=b" });
  assert.equal((await form.json()).error_description, "the registration must be application/json");
  const big = await register(app.url, { ...PUBLIC, client_name: "x".repeat(20_000) });
  assert.equal(big.res.status, 413);
  const get = await fetch(`${app.url}/register`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST, OPTIONS");
  await get.body?.cancel();
});

Deno.test(`registrations are limited to ${OAUTH_RATE_LIMITS.register} a minute per address; X-Forwarded-For is ignored from an untrusted peer`, async () => {
  await using app = await startOAuthApp();
  for (let i = 0; i < OAUTH_RATE_LIMITS.register; i++) {
    const { res } = await register(app.url, PUBLIC, { "X-Forwarded-For": `203.0.113.${i}` });
    assert.equal(res.status, 201, `registration ${i + 1}`);
  }
  const { res, body } = await register(app.url, PUBLIC, { "X-Forwarded-For": "198.51.100.7" });
  assert.equal(res.status, 429);
  assert.equal(body.error, "temporarily_unavailable");
  assert.match(
    body.error_description as string,
    /too many registrations from your address; retry in \d+ s/,
  );
  assert.equal(res.headers.get("retry-after"), "6");
  app.clock.ms += 60_000;
  assert.equal((await register(app.url, PUBLIC)).res.status, 201, "the bucket refills with time");
});

Deno.test("behind a trusted proxy, each forwarded client address has its own registration limit", async () => {
  await using app = await startOAuthApp({ settings: { trusted_proxies: ["127.0.0.0/8"] } });
  const from = (address: string) => register(app.url, PUBLIC, { "X-Forwarded-For": address });
  for (let i = 0; i < OAUTH_RATE_LIMITS.register; i++) {
    assert.equal((await from("203.0.113.1")).res.status, 201);
  }
  assert.equal((await from("203.0.113.1")).res.status, 429, "that client is over its limit");
  assert.equal((await from("203.0.113.2")).res.status, 201, "another client is not");
  // A client cannot dodge its limit by writing its own X-Forwarded-For: the proxy appends the real one.
  assert.equal((await from("10.9.9.9, 203.0.113.1")).res.status, 429);
});

/**
 * @module `/authorize` and its consent page (docs/connectors.md#the-consent-page): the page for a
 * checked request, refusals about the client or redirect URI shown and never redirected, the rest
 * redirected with the right `error`, CSRF bound to the browser and the request, and the decision.
 */
import assert from "node:assert/strict";
import { PairingCodes } from "../../../src/core/oauth/pairing_codes.ts";
import { OAUTH_RATE_LIMITS } from "../../../src/http/oauth/oauth_endpoints.ts";
import {
  authorizeQuery,
  ISSUER,
  openConsent,
  postConsent,
  publicClient,
  REDIRECT,
  redirectParams,
  register,
  startOAuthApp,
  staticToken,
} from "./_oauth_app.ts";

Deno.test("the consent page shows the client's name escaped, the redirect's origin and what it asks, under a strict CSP", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url, `<script>alert(1)</script>Claude`);
  const form = await openConsent(app.url, authorizeQuery(clientId, { scope: "engram:write" }));
  assert.equal(form.res.status, 200);
  const csp = form.res.headers.get("content-security-policy")!;
  assert.match(csp, /^default-src 'self';/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /form-action 'self' https:\/\/claude\.ai/);
  assert.equal(form.res.headers.get("x-frame-options"), "DENY");
  assert.equal(form.res.headers.get("cache-control"), "no-store");
  assert.match(
    form.res.headers.get("set-cookie")!,
    /^__Host-engram_consent=.*; HttpOnly; SameSite=Strict;.*Secure/,
  );
  assert.ok(!form.html.includes("<script>"));
  assert.ok(form.html.includes("&#60;script&#62;alert(1)&#60;/script&#62;Claude"));
  assert.ok(form.html.includes("<code>https://claude.ai</code>"));
  assert.match(form.html, /tier write \(scope engram:write\)/);
  assert.equal(form.fields.client_id, clientId);
  assert.equal(form.fields.redirect_uri, REDIRECT);
  assert.match(form.fields.csrf, /^\d+\.[A-Za-z0-9_-]{43}$/);
});

Deno.test("an unknown client or an unregistered redirect URI is shown on engram's page, never redirected", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const cases: [string, RegExp][] = [
    [authorizeQuery("oac_nobody"), /client &#34;oac_nobody&#34; is not registered/],
    [
      authorizeQuery(clientId, { redirect_uri: "https://evil.example/cb" }),
      /redirect_uri .* is not registered for client/,
    ],
    [authorizeQuery(clientId, { redirect_uri: null }), /names no redirect_uri/],
    [authorizeQuery(clientId, { client_id: null }), /names no client_id/],
    [`${authorizeQuery(clientId)}&state=again`, /the parameter state was given twice/],
  ];
  for (const [query, message] of cases) {
    const res = await fetch(`${app.url}/authorize?${query}`, { redirect: "manual" });
    assert.equal(res.status, 400, query);
    assert.equal(res.headers.get("location"), null, "no redirect");
    assert.match(res.headers.get("content-security-policy")!, /default-src 'self'/);
    assert.match(await res.text(), message);
  }
});

Deno.test("once the client is verified, refusals go back to it: resource missing or another server's, no PKCE S256, no state, another response_type", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const cases: [Record<string, string | null>, string, RegExp][] = [
    [
      { resource: null },
      "invalid_target",
      /resource must be this server's https:\/\/memory\.example\.com\/mcp/,
    ],
    [
      { resource: "https://other.example/mcp" },
      "invalid_target",
      /not "https:\/\/other\.example\/mcp"/,
    ],
    [{ code_challenge_method: "plain" }, "invalid_request", /code_challenge_method must be S256/],
    [{ code_challenge_method: null }, "invalid_request", /code_challenge_method must be S256/],
    [{ code_challenge: null }, "invalid_request", /code_challenge must be/],
    [{ response_type: "token" }, "unsupported_response_type", /response_type must be code/],
  ];
  for (const [extra, error, description] of cases) {
    const res = await fetch(`${app.url}/authorize?${authorizeQuery(clientId, extra)}`, {
      redirect: "manual",
    });
    const params = redirectParams(res);
    assert.ok(res.headers.get("location")!.startsWith(`${REDIRECT}?`));
    assert.equal(params.get("error"), error, JSON.stringify(extra));
    assert.match(params.get("error_description")!, description);
    assert.equal(params.get("state"), "st4te");
    assert.equal(params.get("iss"), ISSUER);
  }
  const noState = redirectParams(
    await fetch(`${app.url}/authorize?${authorizeQuery(clientId, { state: null })}`, {
      redirect: "manual",
    }),
  );
  assert.equal(noState.get("error"), "invalid_request");
  assert.equal(noState.get("state"), null);
});

Deno.test("allow with a live token redirects with a code, the state and iss; deny redirects with access_denied", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const token = await staticToken(app, "write");
  const allowed = redirectParams(
    await postConsent(app.url, await openConsent(app.url, authorizeQuery(clientId)), {
      token,
      decision: "allow",
    }),
  );
  assert.match(allowed.get("code")!, /^egc_/);
  assert.equal(allowed.get("state"), "st4te");
  assert.equal(allowed.get("iss"), ISSUER);
  const denied = redirectParams(
    await postConsent(app.url, await openConsent(app.url, authorizeQuery(clientId)), {
      decision: "deny",
    }),
  );
  assert.equal(denied.get("error"), "access_denied");
  assert.equal(denied.get("state"), "st4te");
  assert.equal(denied.get("code"), null);
});

Deno.test("a pairing code proves once: allowed the first time, refused the second", async () => {
  await using app = await startOAuthApp();
  const pairing = new PairingCodes(app.storage, { now: app.clock.date });
  const { code } = await pairing.create({ tier: "write" });
  const clientId = await publicClient(app.url);
  const first = redirectParams(
    await postConsent(app.url, await openConsent(app.url, authorizeQuery(clientId)), {
      token: code.toLowerCase(),
      decision: "allow",
    }),
  );
  assert.match(first.get("code")!, /^egc_/);
  const again = await postConsent(app.url, await openConsent(app.url, authorizeQuery(clientId)), {
    token: code,
    decision: "allow",
  });
  assert.equal(again.status, 403);
  assert.match(await again.text(), /not a live engram token or an unused, unexpired pairing code/);
});

Deno.test("a read-tier proof asking for write is refused back to the client with invalid_scope", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const token = await staticToken(app, "read");
  const form = await openConsent(app.url, authorizeQuery(clientId, { scope: "engram:write" }));
  const params = redirectParams(await postConsent(app.url, form, { token, decision: "allow" }));
  assert.equal(params.get("error"), "invalid_scope");
  assert.match(
    params.get("error_description")!,
    /asks for tier write, more than the proof allows \(read\)/,
  );
  assert.equal(params.get("code"), null);
});

Deno.test("a wrong or missing proof re-shows the page with the problem and a fresh form; nothing is redirected", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const form = await openConsent(app.url, authorizeQuery(clientId));
  const proof = "egt_" + "x".repeat(43);
  const wrong = await postConsent(app.url, form, { token: proof, decision: "allow" });
  assert.equal(wrong.status, 403);
  const html = await wrong.text();
  assert.ok(!html.includes(proof), "the proof is never written back into the page");
  assert.match(html, /role="alert">that is not a live engram token/);
  assert.match(html, /name="csrf" value="\d+\./);
  const empty = await postConsent(app.url, form, { token: "", decision: "allow" });
  assert.match(await empty.text(), /enter an engram token or a pairing code to allow/);
  const odd = await postConsent(app.url, form, { decision: "maybe" });
  assert.equal(odd.status, 400);
  assert.match(await odd.text(), /decision must be allow or deny/);
});

Deno.test("CSRF: the form is refused without the browser's cookie, with another browser's, or with a field changed", async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const token = await staticToken(app, "write");
  const form = await openConsent(app.url, authorizeQuery(clientId));
  const other = await openConsent(app.url, authorizeQuery(clientId));
  const refusals: [Response, RegExp][] = [
    [
      await postConsent(app.url, form, { token, decision: "allow", cookie: "" }),
      /session is missing/,
    ],
    [
      await postConsent(app.url, form, { token, decision: "allow", cookie: other.cookie }),
      /does not match the page engram showed/,
    ],
    [
      // Another registered redirect URI: the client checks pass, the CSRF token does not.
      await postConsent(app.url, form, { token, decision: "allow" }, {
        redirect_uri: "https://claude.ai/other_callback",
      }),
      /does not match the page engram showed/,
    ],
    [
      await postConsent(app.url, form, { token, decision: "allow" }, { csrf: "" }),
      /session is missing/,
    ],
  ];
  for (const [res, message] of refusals) {
    assert.equal(res.status, 403);
    assert.equal(res.headers.get("location"), null);
    assert.match(await res.text(), message);
  }
  // The page expires.
  app.clock.ms += 11 * 60_000;
  const late = await postConsent(app.url, form, { token, decision: "allow" });
  assert.equal(late.status, 403);
  assert.match(await late.text(), /the consent page expired/);
});

Deno.test(`consent posts are limited to ${OAUTH_RATE_LIMITS.authorize} a minute per address, so a pairing code cannot be guessed by trying`, async () => {
  await using app = await startOAuthApp();
  const clientId = await publicClient(app.url);
  const form = await openConsent(app.url, authorizeQuery(clientId));
  for (let i = 0; i < OAUTH_RATE_LIMITS.authorize; i++) {
    const res = await postConsent(app.url, form, {
      token: `AAAA-AAAA-AAAA-AA${i.toString().padStart(2, "0")}`,
      decision: "allow",
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  }
  const res = await postConsent(app.url, form, { token: "AAAA-AAAA-AAAA-AAAA", decision: "allow" });
  assert.equal(res.status, 429);
  assert.ok(Number(res.headers.get("retry-after")) > 0);
  assert.match(await res.text(), /too many attempts from your address/);
});

Deno.test("a registered confidential client's consent works the same; client names are never trusted as ids", async () => {
  await using app = await startOAuthApp();
  const { body } = await register(app.url, {
    client_name: "oac_fake",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "client_secret_post",
  });
  const form = await openConsent(app.url, authorizeQuery(body.client_id as string));
  assert.equal(form.res.status, 200);
  assert.match(form.html, /<strong>oac_fake<\/strong> \(client id <code>oac_/);
  const bogus = await fetch(`${app.url}/authorize?${authorizeQuery("oac_fake")}`, {
    redirect: "manual",
  });
  assert.equal(bogus.status, 400);
  await bogus.body?.cancel();
});

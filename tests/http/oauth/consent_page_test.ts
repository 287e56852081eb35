/**
 * @module The consent page's parts (docs/connectors.md#the-consent-page): every untrusted value
 * escaped, no script or inline style, a strict CSP; CSRF tokens bound to the browser's cookie and
 * to the request's fields, and expiring.
 */
import assert from "node:assert/strict";
import {
  consentPage,
  escapeHtml,
  pageHeaders,
  REQUEST_FIELDS,
} from "../../../src/http/oauth/consent_page.ts";
import { CONSENT_TTL_MS, ConsentCsrf } from "../../../src/http/oauth/csrf.ts";

const HOSTILE = `<script>alert("x")</script><img src=x onerror='y'>&`;

Deno.test("the consent page escapes the client's name, id and every hidden field, and has no script or inline style", () => {
  const request = Object.fromEntries(
    REQUEST_FIELDS.map((n) => [n, `${n}"><b>${HOSTILE}`]),
  ) as Record<
    (typeof REQUEST_FIELDS)[number],
    string
  >;
  const html = consentPage({
    request,
    clientName: HOSTILE,
    clientId: HOSTILE,
    redirectOrigin: "https://claude.ai",
    asks: HOSTILE,
    csrf: "1.abc",
    problem: HOSTILE,
  });
  assert.ok(!html.includes("<script"), "no script element, not even an escaped client's");
  assert.ok(!html.includes("<img"), "no element a client wrote");
  assert.ok(!html.includes("<b>"));
  assert.ok(!/\sstyle=|<style/i.test(html), "no inline style");
  const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
  assert.ok(
    tags.every((t) => !/\son[a-z]+=/i.test(t.replace(/"[^"]*"/g, `""`))),
    "no event handler attribute on any tag (quoted values aside)",
  );
  assert.ok(html.includes(escapeHtml(HOSTILE)));
  assert.ok(html.includes("<code>https://claude.ai</code>"), "the redirect's origin is shown");
  assert.match(html, /<link rel="stylesheet" href="\/oauth\/consent\.css">/);
  for (const name of REQUEST_FIELDS) assert.match(html, new RegExp(`name="${name}"`));
  assert.match(html, /name="decision" value="allow"/);
  assert.match(html, /name="decision" value="deny"/);
});

Deno.test("pages carry a CSP of default-src 'self' with no framing, and allow the form to lead to the redirect's origin", () => {
  const h = pageHeaders(["https://claude.ai"]);
  assert.equal(
    h["Content-Security-Policy"],
    "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self' https://claude.ai",
  );
  assert.equal(h["X-Frame-Options"], "DENY");
  assert.equal(h["Cache-Control"], "no-store");
  assert.equal(h["Referrer-Policy"], "same-origin");
});

Deno.test("a CSRF token fits only its browser's cookie and the fields it was signed for, until it expires", async () => {
  let now = 1_000_000;
  const csrf = new ConsentCsrf({ secure: true, now: () => now });
  const { nonce, setCookie } = csrf.newNonce();
  assert.match(
    setCookie,
    /^__Host-engram_consent=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=600; Secure$/,
  );
  const fields = ["code", "client", "https://claude.ai/cb"];
  const token = await csrf.sign(nonce, fields);
  assert.equal(await csrf.check(token, { nonce, fields }), null);
  const other = csrf.newNonce().nonce;
  assert.match(
    (await csrf.check(token, { nonce: other, fields }))!,
    /does not match the page engram showed in this browser/,
  );
  assert.match(
    (await csrf.check(token, { nonce, fields: ["code", "client", "https://evil.example/cb"] }))!,
    /does not match/,
  );
  assert.match(
    (await csrf.check(token, { nonce: null, fields }))!,
    /session is missing \(cookies must be allowed/,
  );
  assert.match((await csrf.check(undefined, { nonce, fields }))!, /session is missing/);
  assert.match((await csrf.check("garbage", { nonce, fields }))!, /malformed/);
  now += CONSENT_TTL_MS + 1;
  assert.match((await csrf.check(token, { nonce, fields }))!, /expired/);
  // Another process (another key) never accepts it.
  const restarted = new ConsentCsrf({ secure: true, now: () => 1_000_000 });
  assert.match((await restarted.check(token, { nonce, fields }))!, /does not match/);
});

Deno.test("the cookie is read back by name; over plain http it is neither Secure nor __Host-", () => {
  const csrf = new ConsentCsrf({ secure: false });
  const { nonce, setCookie } = csrf.newNonce();
  assert.ok(setCookie.startsWith(`engram_consent=${nonce}; `));
  assert.ok(!setCookie.includes("Secure"));
  const req = new Request("http://x/", {
    headers: { cookie: `a=1; engram_consent=${nonce}; b=2` },
  });
  assert.equal(csrf.nonceOf(req), nonce);
  assert.equal(
    csrf.nonceOf(new Request("http://x/", { headers: { cookie: "engram_consent=short" } })),
    null,
  );
});

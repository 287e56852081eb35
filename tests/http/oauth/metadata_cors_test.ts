/**
 * @module The OAuth metadata and CORS (docs/connectors.md#endpoints, #cors): RFC 8414 metadata with
 * public_url as issuer, the protected-resource metadata naming it, preflights and
 * Access-Control-Allow-Origin on metadata, /register and /token, the Host check kept, the consent
 * page's POST from engram's own origin passing the Origin check on a public bind, and nothing of
 * this when OAuth is off.
 */
import assert from "node:assert/strict";
import { startServer } from "../http_helpers.ts";
import { ISSUER, startOAuthApp } from "./_oauth_app.ts";

Deno.test("the authorization-server metadata names public_url as issuer and what engram supports", async () => {
  await using app = await startOAuthApp();
  const res = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const meta = await res.json();
  assert.equal(meta.issuer, ISSUER);
  assert.equal(meta.authorization_endpoint, `${ISSUER}/authorize`);
  assert.equal(meta.token_endpoint, `${ISSUER}/token`);
  assert.equal(meta.registration_endpoint, `${ISSUER}/register`);
  assert.deepEqual(meta.response_types_supported, ["code"]);
  assert.deepEqual(meta.grant_types_supported, ["authorization_code", "refresh_token"]);
  assert.deepEqual(meta.code_challenge_methods_supported, ["S256"]);
  assert.ok(meta.token_endpoint_auth_methods_supported.includes("none"));
  assert.ok(meta.token_endpoint_auth_methods_supported.includes("client_secret_basic"));
  assert.ok(meta.token_endpoint_auth_methods_supported.includes("client_secret_post"));
  assert.equal(meta.client_id_metadata_document_supported, true);
  assert.equal(meta.authorization_response_iss_parameter_supported, true);
  assert.equal(
    meta.scopes_supported,
    undefined,
    "no scopes listed: clients that request all would ask for admin",
  );
});

Deno.test("the protected-resource metadata names engram as its authorization server, on both paths", async () => {
  await using app = await startOAuthApp();
  for (
    const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]
  ) {
    const res = await fetch(`${app.url}${path}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const meta = await res.json();
    assert.equal(meta.resource, `${ISSUER}/mcp`);
    assert.deepEqual(meta.authorization_servers, [ISSUER]);
  }
});

Deno.test("metadata, /register and /token answer CORS preflights from any origin; /authorize and /mcp do not", async () => {
  await using app = await startOAuthApp();
  const cases: [string, string][] = [
    ["/.well-known/oauth-authorization-server", "GET"],
    ["/.well-known/oauth-protected-resource", "GET"],
    ["/register", "POST"],
    ["/token", "POST"],
  ];
  for (const [path, method] of cases) {
    const res = await fetch(`${app.url}${path}`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://claude.ai",
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
      },
    });
    await res.body?.cancel();
    assert.equal(res.status, 204, path);
    assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
    assert.ok(res.headers.get("access-control-allow-methods")!.includes(method), path);
    assert.match(res.headers.get("access-control-allow-headers")!, /Content-Type/);
    assert.match(res.headers.get("access-control-allow-headers")!, /MCP-Protocol-Version/);
    assert.equal(res.headers.get("access-control-allow-credentials"), null, "never credentials");
  }
  // A real cross-origin POST gets through too, and its answer is readable (ACAO on errors as well).
  const res = await fetch(`${app.url}/token`, {
    method: "POST",
    headers: { Origin: "https://claude.ai", "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=authorization_code",
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  await res.body?.cancel();
  // The consent page and the MCP endpoint keep the Origin check: a foreign page gets 403.
  for (const path of ["/authorize", "/mcp"]) {
    const r = await fetch(`${app.url}${path}`, {
      method: "POST",
      headers: { Origin: "https://evil.example" },
    });
    await r.body?.cancel();
    assert.equal(r.status, 403, path);
  }
});

/** A raw HTTP/1.1 request (fetch cannot set Host); the whole reply as text. */
async function rawRequest(url: string, lines: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(new TextEncoder().encode([...lines, "Connection: close", "", ""].join("\r\n")));
  return await new Response(conn.readable).text();
}

Deno.test("the CORS endpoints keep the Host check: a rebinding Host is refused (raw TCP: fetch cannot set Host)", async () => {
  await using app = await startOAuthApp();
  for (const path of ["/.well-known/oauth-authorization-server", "/register", "/token"]) {
    const reply = await rawRequest(app.url, [`OPTIONS ${path} HTTP/1.1`, "Host: evil.example"]);
    assert.match(reply, /^HTTP\/1\.1 403/, path);
    assert.match(reply, /Host header not allowed: evil\.example/);
  }
});

Deno.test("on a public bind, the consent POST from engram's public_url origin passes the Origin check; others get 403", async () => {
  // The policy is decided by server.host; the test listens on loopback all the same.
  await using app = await startOAuthApp({ settings: { host: "0.0.0.0" } });
  const post = (origin: string) =>
    fetch(`${app.url}/authorize`, {
      method: "POST",
      headers: { Origin: origin, "Content-Type": "application/x-www-form-urlencoded" },
      body: "decision=deny",
    });
  const ours = await post(ISSUER);
  assert.equal(ours.status, 403, "refused by CSRF (no consent cookie), not by Origin");
  assert.match(await ours.text(), /consent form&#39;s session is missing/);
  const theirs = await post("https://evil.example");
  assert.equal(theirs.status, 403);
  assert.match((await theirs.json()).error.message, /Origin not allowed: https:\/\/evil\.example/);
});

Deno.test("with OAuth off, there is no authorization server: 404s, and the resource metadata names none", async () => {
  await using server = await startServer();
  for (
    const path of ["/.well-known/oauth-authorization-server", "/authorize", "/token", "/register"]
  ) {
    const res = await fetch(`${server.url}${path}`, { method: "POST" });
    await res.body?.cancel();
    assert.equal(res.status, 404, path);
  }
  const meta = await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json();
  assert.equal(meta.authorization_servers, undefined);
});

Deno.test("the consent stylesheet is served from engram's origin, as the CSP requires", async () => {
  await using app = await startOAuthApp();
  const res = await fetch(`${app.url}/oauth/consent.css`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/css/);
  assert.match(await res.text(), /button/);
});

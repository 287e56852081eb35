/**
 * @module Each authorization server engram refuses to log in to, refused naming the check, before
 * anything secret is sent: no PKCE S256, an endpoint over plain http off loopback, metadata on
 * another origin (its issuer, or the protected-resource metadata the 401 points to), a resource
 * that is not this server, a callback with another state; and a denied authorization, reported in
 * the server's (escaped) words. Nothing is kept from a refused login.
 */
import assert from "node:assert/strict";
import type { EngramError } from "../../../../src/core/errors.ts";
import {
  type OAuthUpstreamOptions,
  startOAuthUpstream,
} from "../../../fixtures/oauth/oauth_upstream.ts";
import { login, oauthSetup, serverAt } from "./_oauth_setup.ts";

/** Logs in to a fixture started with `options`; the error it fails with, and what it asked. */
async function refusedLogin(options: OAuthUpstreamOptions) {
  await using up = await startOAuthUpstream(options);
  await using s = await oauthSetup();
  let error: EngramError | null = null;
  try {
    await login(s, serverAt(up.url));
  } catch (e) {
    error = e as EngramError;
  }
  assert.ok(error, "the login was refused");
  const row = await s.storage.upstreamCredentials.findCredentials("docs");
  return { error, counts: { ...up.counts }, tokens: row?.tokens ?? null };
}

const CASES: [string, OAuthUpstreamOptions, RegExp][] = [
  [
    "no code_challenge_methods_supported at all",
    { pkceMethods: null },
    /^upstream "docs": OAuth check pkce_s256 failed \(the authorization server must offer PKCE with S256\): http:\/\/127\.0\.0\.1:\d+ lists code_challenge_methods_supported not at all, without S256; engram will not log in to it$/,
  ],
  [
    "PKCE without S256",
    { pkceMethods: ["plain"] },
    /OAuth check pkce_s256 failed .*lists code_challenge_methods_supported \["plain"\], without S256/,
  ],
  [
    "a token endpoint over plain http off loopback",
    { tokenEndpoint: "http://auth.example.test/token" },
    /^upstream "docs": OAuth check https_endpoint failed \(OAuth endpoints must use https \(plain http only on a loopback host\)\): the token endpoint http:\/\/auth\.example\.test\/token is plain http on a host that is not loopback; engram will not log in to it$/,
  ],
  [
    "an issuer on another origin",
    { issuer: "https://issuer.example.test" },
    /OAuth check metadata_origin failed \(OAuth metadata must come from the origin it describes\): the authorization server metadata fetched for http:\/\/127\.0\.0\.1:\d+ names issuer https:\/\/issuer\.example\.test/,
  ],
  [
    "protected-resource metadata on another origin",
    { resourceMetadataUrl: "http://127.0.0.2:9/.well-known/oauth-protected-resource/mcp" },
    /OAuth check metadata_origin failed .*: http:\/\/127\.0\.0\.1:\d+ points to its protected-resource metadata at http:\/\/127\.0\.0\.2:9, another origin/,
  ],
  [
    "a resource that is not this server",
    { resource: "https://evil.example.test/mcp" },
    /OAuth check resource failed \(the protected resource named by the metadata must be this server\): its protected-resource metadata names https:\/\/evil\.example\.test\/mcp, not http:\/\/127\.0\.0\.1:\d+\/mcp/,
  ],
];

for (const [what, options, message] of CASES) {
  Deno.test(`login refused before any registration or authorization: ${what}`, async () => {
    const { error, counts, tokens } = await refusedLogin(options);
    assert.equal(error.code, "forbidden", error.message);
    assert.match(error.message, message);
    assert.deepEqual([counts.register, counts.authorize, counts.token], [0, 0, 0]);
    assert.equal(tokens, null);
  });
}

Deno.test("login refused: a callback with another state than engram sent (no code is exchanged)", async () => {
  const { error, counts, tokens } = await refusedLogin({ callback: "wrong_state" });
  assert.equal(error.code, "forbidden");
  assert.equal(
    error.message,
    'upstream "docs": OAuth check state failed (the callback must carry the state engram sent): the callback carried another state than engram sent (a forged or stale callback); engram will not log in to it',
  );
  assert.equal(counts.token, 0, "the code was never exchanged");
  assert.equal(tokens, null);
});

Deno.test("login refused: a denied authorization is reported in the server's escaped words", async () => {
  const { error, counts } = await refusedLogin({ callback: "deny" });
  assert.equal(error.code, "forbidden");
  assert.equal(
    error.message,
    'upstream "docs": the authorization server answered the login with access_denied (the user said no\\x1b[31m)',
  );
  assert.equal(counts.token, 0);
});

Deno.test("login refused: a port for the callback that is taken is named, with the fix", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  await assert.rejects(
    login(s, serverAt(up.url, { oauth: { redirect_port: port } })),
    (e: EngramError) => {
      assert.equal(e.code, "conflict");
      assert.equal(
        e.message,
        `upstream "docs": port ${port} on 127.0.0.1 is in use, so engram cannot receive the login callback there; free it, or change oauth.redirect_port`,
      );
      return true;
    },
  );
});

Deno.test("login refused: a static Authorization header, and an unset client secret, before anything is sent", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  await assert.rejects(
    login(s, serverAt(up.url, { headers: { Authorization: "Bearer ${DOCS_TOKEN}" } })),
    /sends a static Authorization header from its config entry, so engram does not log in to it with OAuth; remove that header to log in/,
  );
  await assert.rejects(
    login(s, serverAt(up.url, { oauth: { client_id: "pre", client_secret: "${DOCS_SECRET}" } })),
    /upstream "docs": oauth\.client_secret refers to \$\{DOCS_SECRET\}, which is not set; export it in engram's environment/,
  );
  assert.equal(up.counts.mcp, 0, "nothing was sent");
});

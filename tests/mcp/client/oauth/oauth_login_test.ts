/**
 * @module engram's OAuth login against a loopback authorization server (tests/fixtures/oauth/):
 * discovery, dynamic registration, PKCE S256, `state` and `resource`, the tokens sealed at rest,
 * calls that use them, no login where none is needed, `needs login` with its fix, logout, and a
 * step-up that the next login asks for.
 */
import assert from "node:assert/strict";
import { startOAuthUpstream } from "../../../fixtures/oauth/oauth_upstream.ts";
import { startStreamableHttpUpstream } from "../../../fixtures/upstream/http_upstream.ts";
import type { EngramError } from "../../../../src/core/errors.ts";
import { NeedsLoginError, needsLoginOf } from "../../../../src/mcp/client/oauth/oauth_errors.ts";
import { databaseText, login, oauthSetup, serverAt } from "./_oauth_setup.ts";

Deno.test("login: discovery, registration, PKCE S256, state and resource; tokens sealed; calls work", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  const result = await login(s, server);
  assert.equal(result.status, "logged_in");
  assert.equal(result.authorizations, 1);
  assert.equal(result.refreshable, true);
  assert.deepEqual(
    { register: up.counts.register, authorize: up.counts.authorize },
    { register: 1, authorize: 1 },
  );
  const asked = up.authorizations[0];
  assert.equal(asked.get("code_challenge_method"), "S256");
  assert.equal(asked.get("resource"), up.url);
  assert.match(asked.get("state") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.match(asked.get("redirect_uri") ?? "", /^http:\/\/127\.0\.0\.1:\d+\/callback$/);

  const session = await s.session(server);
  const result2 = await session.callTool("echo", { text: "hi" });
  assert.deepEqual(result2.content, [{ type: "text", text: 'echo: {"text":"hi"}' }]);

  const state = await s.oauth.authState(server);
  assert.equal(state.state, "logged_in");
  assert.equal(state.client, "dynamic");
  assert.equal(state.authorization_server, up.origin);
  const stored = await databaseText(s.dir);
  for (const secret of up.secrets()) {
    assert.ok(!stored.includes(secret), "no token or code is stored in the clear");
  }
  assert.ok(!JSON.stringify(state).includes("at-"), "the state holds no token");
  const key = await Deno.stat(`${s.dir}/secret.key`);
  assert.equal(key.mode! & 0o777, 0o600, "the key file is private");
});

Deno.test("login: a fixed redirect_port keeps the registration for the next login", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const server = serverAt(up.url, { oauth: { redirect_port: port } });
  await login(s, server);
  await login(s, server);
  assert.equal(up.counts.register, 1, "registered once");
  assert.equal(up.counts.authorize, 2);
  assert.equal(up.authorizations[1].get("redirect_uri"), `http://127.0.0.1:${port}/callback`);
});

Deno.test("login: a server that answers without a login needs none, and nothing is kept", async () => {
  await using up = await startStreamableHttpUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  const result = await login(s, server, () => Promise.reject(new Error("no browser expected")));
  assert.equal(result.status, "no_auth_needed");
  assert.equal(await s.storage.upstreamCredentials.findCredentials("docs"), null);
  assert.equal((await s.oauth.authState(server)).state, "no_auth");
});

Deno.test("without a login a call fails with the fix and the server is marked needs login; logout forgets", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  const first = await s.session(server);
  await assert.rejects(first.callTool("echo", {}), (e: Error) => {
    assert.ok(needsLoginOf(e), String(e));
    assert.equal((e as EngramError).code, "forbidden");
    assert.equal(
      e.message,
      'upstream "docs" needs a login: not logged in; log in with: engram mcp auth login docs',
    );
    return true;
  });
  assert.equal(up.counts.register + up.counts.authorize, 0, "nothing was asked of the server");
  const needs = await s.oauth.authState(server);
  assert.deepEqual([needs.state, needs.detail, needs.fix], [
    "needs_login",
    "not logged in",
    "engram mcp auth login docs",
  ]);

  await login(s, server);
  assert.equal((await (await s.session(server)).callTool("echo", {})).isError, undefined);
  assert.equal(await s.oauth.logout("docs"), true);
  assert.equal(await s.oauth.logout("docs"), false, "nothing left to forget");
  assert.equal((await s.oauth.authState(server)).state, "no_auth");
  await assert.rejects((await s.session(server)).callTool("echo", {}), (e) => !!needsLoginOf(e));
});

Deno.test("a step-up marks needs login with the scope; the next login asks for it and the call works", async () => {
  await using up = await startOAuthUpstream({ writeScope: "notes:write" });
  await using s = await oauthSetup();
  const server = serverAt(up.url, { oauth: { scopes: ["notes:read"] } });
  await login(s, server);
  assert.equal(up.authorizations[0].get("scope"), "notes:read", "the entry's scopes asked for");
  const session = await s.session(server);
  await assert.rejects(session.callTool("write", {}), (e: Error) => {
    assert.ok(e instanceof NeedsLoginError, String(e));
    assert.match(
      e.message,
      /needs a login: the server asks for more scope \(notes:read notes:write\) than the login granted \(notes:read\); log in with: engram mcp auth login docs$/,
    );
    return true;
  });
  const state = await s.oauth.authState(server);
  assert.equal(state.state, "needs_login");
  assert.equal(state.required_scope, "notes:read notes:write");
  const echo = await session.callTool("echo", {});
  assert.equal(echo.isError, undefined, "the token still serves what it was granted for");

  await login(s, server);
  assert.equal(up.authorizations[1].get("scope"), "notes:read notes:write");
  const write = await (await s.session(server)).callTool("write", {});
  assert.deepEqual(write.content, [{ type: "text", text: "write: {}" }]);
  const after = await s.oauth.authState(server);
  assert.deepEqual([after.state, after.required_scope], ["logged_in", null]);
});

Deno.test("login: a step-up during the login is asked for; one no authorization can satisfy stops, saying why", async () => {
  await using grows = await startOAuthUpstream({ listScope: "tools:read" });
  await using s = await oauthSetup();
  const granted = await login(s, serverAt(grows.url));
  assert.equal(granted.authorizations, 2, "the 403 on tools/list was answered by a second one");
  assert.equal(grows.authorizations[1].get("scope"), "tools:read");
  assert.equal(granted.scope, "tools:read");

  await using stuck = await startOAuthUpstream({ listScope: "admin", withheld: ["admin"] });
  await using t = await oauthSetup();
  await assert.rejects(login(t, serverAt(stuck.url, { name: "stuck" })), (e: Error) => {
    assert.equal((e as EngramError).code, "forbidden");
    assert.equal(
      e.message,
      'upstream "stuck" still refuses for insufficient scope (admin) although the last authorization asked for admin; logging in again will not help: ask its operator',
    );
    return true;
  });
  assert.equal(stuck.counts.authorize, 2, "no third authorization");
});

Deno.test("the legacy SSE transport logs in, calls, and refreshes a refused token the same way", async () => {
  await using up = await startOAuthUpstream({ transport: "sse" });
  await using s = await oauthSetup();
  const server = serverAt(up.url, { transport: "sse" });
  const result = await login(s, server);
  assert.equal(result.status, "logged_in");
  assert.match(up.authorizations[0].get("resource") ?? "", /^http:\/\/127\.0\.0\.1:\d+\/sse$/);
  const session = await s.session(server);
  assert.deepEqual((await session.callTool("echo", { text: "sse" })).content, [
    { type: "text", text: 'echo: {"text":"sse"}' },
  ]);
  up.revokeAccessTokens();
  await session.close();
  const again = await s.session(server);
  assert.equal((await again.callTool("echo", {})).isError, undefined);
  assert.equal(up.counts.refresh, 1, "the stream's 401 was answered by one refresh");
});

Deno.test("an entry with its own Authorization header does not use OAuth, and status says so", async () => {
  await using s = await oauthSetup();
  const server = serverAt("https://docs.example.test/mcp", {
    headers: { authorization: "Bearer ${DOCS_TOKEN}" },
  });
  assert.equal(s.oauth.connectionAuth(server), null);
  const state = await s.oauth.authState(server);
  assert.deepEqual([state.state, state.fix], ["static_headers", null]);
  assert.deepEqual(await s.oauth.authStates([]), []);
});

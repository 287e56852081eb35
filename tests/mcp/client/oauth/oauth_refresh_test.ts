/**
 * @module Refreshing an upstream's tokens: before they expire (the clock is moved, not waited for),
 * when the server refuses the access token (once, under the lease, then the request again), a
 * refused refresh (needs login, with the fix), an authorization server that cannot answer (refresh
 * failing, tokens kept, the next call refreshes), and two processes sharing a rotating refresh
 * token: only one spends it, and both use what it got.
 */
import assert from "node:assert/strict";
import type { EngramError } from "../../../../src/core/errors.ts";
import { needsLoginOf } from "../../../../src/mcp/client/oauth/oauth_errors.ts";
import { startOAuthUpstream } from "../../../fixtures/oauth/oauth_upstream.ts";
import { login, oauthSetup, serverAt } from "./_oauth_setup.ts";

const HOUR_MS = 3_600_000;

Deno.test("a token expiring within a minute is refreshed before the call, with the resource, and rotated", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  await login(s, server);
  const session = await s.session(server);
  await session.callTool("echo", {});
  assert.equal(up.counts.refresh, 0, "a fresh token is used as it is");
  s.clock.advance(HOUR_MS - 30_000);
  await session.callTool("echo", {});
  assert.equal(up.counts.refresh, 1);
  assert.equal(up.refreshes[0].resource, up.url, "the refresh names the resource");
  const row = await s.storage.upstreamCredentials.findCredentials("docs");
  assert.equal(row?.refreshed_at, s.clock.now().toISOString());
  assert.equal(row?.expires_at, new Date(s.clock.now().getTime() + HOUR_MS).toISOString());
  await session.callTool("echo", {});
  assert.equal(up.counts.refresh, 1, "the new token lasts");
  assert.equal(up.reused, 0);
});

Deno.test("a refused access token is refreshed once under the lease and the request sent again", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  await login(s, server);
  const session = await s.session(server);
  await session.callTool("echo", {});
  up.revokeAccessTokens();
  const result = await session.callTool("echo", { text: "again" });
  assert.deepEqual(result.content, [{ type: "text", text: 'echo: {"text":"again"}' }]);
  assert.equal(up.counts.refresh, 1);
  assert.equal((await s.oauth.authState(server)).state, "logged_in");
});

Deno.test("a refused refresh marks the server needs login, forgets the tokens and says the fix", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  await login(s, server);
  up.failRefreshes("invalid_grant");
  s.clock.advance(HOUR_MS + 1);
  const session = await s.session(server);
  await assert.rejects(session.callTool("echo", {}), (e: Error) => {
    assert.ok(needsLoginOf(e), String(e));
    assert.equal(
      e.message,
      'upstream "docs" needs a login: the authorization server refused the refresh (invalid_grant: fixture: invalid_grant); log in with: engram mcp auth login docs',
    );
    return true;
  });
  const state = await s.oauth.authState(server);
  assert.equal(state.state, "needs_login");
  assert.equal(state.fix, "engram mcp auth login docs");
  const row = await s.storage.upstreamCredentials.findCredentials("docs");
  assert.deepEqual([row?.tokens, row?.refreshable], [null, false]);
});

Deno.test("an authorization server that cannot answer marks refresh failing and keeps the tokens; the next call refreshes", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  const server = serverAt(up.url);
  await login(s, server);
  up.failRefreshes("unavailable");
  const session = await s.session(server);
  await session.connect();
  s.clock.advance(HOUR_MS - 30_000);
  await session.callTool("echo", {});
  await session.callTool("echo", {});
  assert.equal(up.counts.refresh, 1, "tried once, and the still-valid token was used");
  assert.equal((await s.oauth.authState(server)).state, "refresh_failing");
  s.clock.advance(60_000);
  await assert.rejects(session.callTool("echo", {}), (e: EngramError) => {
    assert.equal(e.code, "provider_unavailable");
    assert.match(
      e.message,
      /^upstream "docs": refreshing failed: .*temporarily_unavailable.*; engram tries again on the next call, or log in again with: engram mcp auth login docs$/,
    );
    return true;
  });
  const failing = await s.oauth.authState(server);
  assert.equal(failing.state, "refresh_failing");
  assert.match(failing.detail ?? "", /^refreshing failed: /);
  up.failRefreshes(null);
  await session.callTool("echo", {});
  assert.equal((await s.oauth.authState(server)).state, "logged_in");
});

/** Reads a child's stdout line by line. */
function lines(child: Deno.ChildProcess): () => Promise<string> {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return async () => {
    while (!buffer.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the process ended; it had written: ${buffer}`);
      buffer += value;
    }
    const at = buffer.indexOf("\n");
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    return line;
  };
}

Deno.test("two processes sharing a rotating refresh token: one refreshes under the lease, both use its tokens", async () => {
  await using up = await startOAuthUpstream();
  await using s = await oauthSetup();
  await login(s, serverAt(up.url));
  // Both processes find the access token expired.
  await s.storage.upstreamCredentials.updateCredentials("docs", {
    expires_at: new Date(Date.now() - 1000).toISOString(),
  });
  const racer = new URL("../../../fixtures/oauth/refresh_racer.ts", import.meta.url).pathname;
  const spawn = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-q", "-A", racer, s.dir, up.url],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
  const first = spawn();
  const second = spawn();
  const firstLine = lines(first);
  const secondLine = lines(second);
  assert.equal(await firstLine(), "ready");
  assert.equal(await secondLine(), "ready");
  const go = new TextEncoder().encode("go\n");
  const held = up.holdNextRefresh();
  const firstIn = first.stdin.getWriter();
  await firstIn.write(go);
  await held.arrived;
  // The first holds the lease, its refresh held at the authorization server: the second waits.
  const secondIn = second.stdin.getWriter();
  await secondIn.write(go);
  assert.equal(await secondLine(), "lease-busy");
  held.release();
  const a = await firstLine();
  const b = await secondLine();
  await firstIn.close();
  await secondIn.close();
  assert.equal((await first.status).code, 0);
  assert.equal((await second.status).code, 0);
  assert.match(a, /^token at-/);
  assert.equal(b, a, "the second uses the tokens the first stored");
  assert.equal(up.counts.refresh, 1, "one refresh");
  assert.equal(up.reused, 0, "the refresh token was never spent twice");
});

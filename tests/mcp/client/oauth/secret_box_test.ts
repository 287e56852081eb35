/**
 * @module Sealing at rest: AES-256-GCM values bound to their server and field; a value sealed
 * under another key refused as such, naming both keys; and what that means for a login when the
 * key changes — status says so, and a call fails with the fix, never with garbage.
 */
import assert from "node:assert/strict";
import type { EngramError } from "../../../../src/core/errors.ts";
import { envFrom } from "../../../../src/config/env.ts";
import { secretKeySource } from "../../../../src/config/secret_key.ts";
import { SecretBox } from "../../../../src/mcp/client/oauth/secret_box.ts";
import { UpstreamOAuth } from "../../../../src/mcp/client/oauth/upstream_oauth.ts";
import { startOAuthUpstream } from "../../../fixtures/oauth/oauth_upstream.ts";
import { UpstreamSession } from "../../../../src/mcp/client/session/upstream_session.ts";
import { login, oauthSetup, serverAt } from "./_oauth_setup.ts";

const keyOf = (fill: number) => btoa(String.fromCharCode(...new Uint8Array(32).fill(fill)));

Deno.test("secret box: a sealed value opens only with its key, for its server and field", async () => {
  const box = await SecretBox.fromKey(new Uint8Array(32).fill(1));
  const other = await SecretBox.fromKey(new Uint8Array(32).fill(2));
  assert.match(box.keyId, /^[0-9a-f]{12}$/);
  assert.notEqual(box.keyId, other.keyId);
  const sealed = await box.seal("the token", "docs tokens");
  assert.ok(!sealed.includes("the token"));
  assert.notEqual(await box.seal("the token", "docs tokens"), sealed, "a fresh IV each time");
  assert.equal(await box.open(sealed, "docs tokens", "the tokens"), "the token");
  await assert.rejects(box.open(sealed, "wiki tokens", "the tokens"), (e: EngramError) => {
    assert.equal(e.code, "forbidden");
    assert.equal(
      e.message,
      `the tokens does not open with key ${box.keyId}: it was damaged, or belongs to another server`,
    );
    return true;
  });
  await assert.rejects(other.open(sealed, "docs tokens", "the tokens"), (e: EngramError) => {
    assert.equal(
      e.message,
      `the tokens was sealed with key ${box.keyId}, but the key in use is ${other.keyId}: restore the key file or ENGRAM_SECRET_KEY it was made under`,
    );
    return true;
  });
  await assert.rejects(box.open("plain", "docs tokens", "the tokens"), /is not a sealed value/);
});

Deno.test("a login sealed under ENGRAM_SECRET_KEY: another key makes status say so and a call fail with the fix", async () => {
  await using up = await startOAuthUpstream();
  const server = serverAt(up.url);
  await using first = await oauthSetup({ env: { ENGRAM_SECRET_KEY: keyOf(1) } });
  await login(first, server);
  assert.equal((await first.oauth.authState(server)).state, "logged_in");
  await assert.rejects(Deno.stat(`${first.dir}/secret.key`), Deno.errors.NotFound);
  const env = envFrom({ ENGRAM_SECRET_KEY: keyOf(2) });
  const rekeyed = new UpstreamOAuth({
    store: first.storage.upstreamCredentials,
    keys: secretKeySource(env, first.dir),
    env,
  });
  const state = await rekeyed.authState(server);
  assert.equal(state.state, "needs_login");
  assert.match(
    state.detail ?? "",
    /^its tokens were sealed with key [0-9a-f]{12}, but the key in use is [0-9a-f]{12}: restore that key, or log in again$/,
  );
  assert.equal(state.fix, "engram mcp auth login docs");
  await using later = await oauthSetup({ env: { ENGRAM_SECRET_KEY: keyOf(2) } });
  const session = new UpstreamSession(server, { facts: await later.facts(), oauth: rekeyed });
  await assert.rejects(session.callTool("echo", {}), (e: EngramError) => {
    assert.equal(e.code, "forbidden");
    assert.match(
      e.message,
      /^the tokens kept for upstream "docs" was sealed with key [0-9a-f]{12}, but the key in use is [0-9a-f]{12}: restore the key file or ENGRAM_SECRET_KEY it was made under; or log in again with: engram mcp auth login docs$/,
    );
    return true;
  });
  await session.close();
  const malformed = new UpstreamOAuth({
    store: first.storage.upstreamCredentials,
    keys: secretKeySource(envFrom({ ENGRAM_SECRET_KEY: "nope" }), first.dir),
    env,
  });
  const broken = await malformed.authState(server);
  assert.equal(broken.state, "needs_login");
  assert.match(broken.detail ?? "", /^ENGRAM_SECRET_KEY is malformed: /);
});

/**
 * @module doctor's OAuth checks against a loopback OAuth upstream (tests/fixtures/oauth/): a server
 * that needs a login fails `initialize` with the login command as its fix (not "check the URL"),
 * and its `auth` check says so; after a login every live check passes; a server whose 401 points
 * to metadata on another origin is refused naming the check; a step-up and a failing refresh each
 * fail `auth` with the fix.
 */
import assert from "node:assert/strict";
import { liveDoctor, type LiveReport } from "../../../../src/mcp/client/doctor/doctor_live.ts";
import { authCheck } from "../../../../src/mcp/client/doctor/doctor_auth.ts";
import { startOAuthUpstream } from "../../../fixtures/oauth/oauth_upstream.ts";
import { login, oauthSetup, serverAt } from "../oauth/_oauth_setup.ts";

function summary(report: LiveReport): string {
  return report.checks.map((c) => `${c.check}:${c.status}`).join(" ");
}

Deno.test("doctor live: a server that needs an OAuth login gets the login fix; after the login it passes", async () => {
  await using up = await startOAuthUpstream();
  await using setup = await oauthSetup();
  const server = serverAt(up.url);
  const facts = await setup.facts();

  const [before] = await liveDoctor([server], { facts, timeoutMs: 5000, oauth: setup.oauth });
  assert.equal(
    summary(before),
    "launch:pass initialize:fail protocol_version:skip capabilities:skip latency:skip",
  );
  const init = before.checks[1];
  assert.equal(init.detail, "the server requires an OAuth login: not logged in");
  assert.equal(init.fix, "log in with: engram mcp auth login docs");
  assert.equal(init.oauth, "needs_login");
  assert.equal(up.counts.authorize, 0, "doctor never starts an authorization");

  const state = await setup.oauth.authState(server);
  assert.deepEqual(authCheck(state), {
    ok: false,
    detail: "needs login: not logged in",
    fix: "log in with: engram mcp auth login docs",
  });

  await login(setup, server);
  const [after] = await liveDoctor([server], { facts, timeoutMs: 5000, oauth: setup.oauth });
  assert.equal(
    summary(after),
    "launch:pass initialize:pass protocol_version:pass capabilities:pass latency:pass",
  );
  const passed = authCheck(await setup.oauth.authState(server));
  assert.equal(passed.ok, true);
  assert.match(passed.detail, /^logged in until \S+Z, refreshed automatically$/);
  assert.equal(passed.fix, "");
});

Deno.test("doctor live: without engram's OAuth the same server would get the misleading check-the-URL fix", async () => {
  await using up = await startOAuthUpstream();
  await using setup = await oauthSetup();
  const [bare] = await liveDoctor([serverAt(up.url)], {
    facts: await setup.facts(),
    timeoutMs: 5000,
  });
  assert.equal(bare.checks[1].status, "fail");
  assert.equal(bare.checks[1].oauth, undefined);
  assert.match(bare.checks[1].fix, /^check the URL and that the server is up/);
});

Deno.test("doctor live: metadata on another origin is refused naming the check", async () => {
  await using other = await startOAuthUpstream();
  await using up = await startOAuthUpstream({
    resourceMetadataUrl: `${other.origin}/.well-known/oauth-protected-resource/mcp`,
  });
  await using setup = await oauthSetup();
  const [report] = await liveDoctor([serverAt(up.url)], {
    facts: await setup.facts(),
    timeoutMs: 5000,
    oauth: setup.oauth,
  });
  const init = report.checks[1];
  assert.equal(init.status, "fail");
  assert.equal(init.oauth, "refused");
  assert.match(init.detail, /OAuth check metadata_origin failed/);
  assert.match(
    init.fix,
    /^engram does not log in to an authorization server that fails its OAuth check metadata_origin; /,
  );
  assert.equal(other.counts.mcp + other.counts.authorize + other.counts.token, 0);
});

Deno.test("doctor auth check: a step-up fails with the wider scope in its fix; a failing refresh says it retries", async () => {
  await using up = await startOAuthUpstream({ writeScope: "write" });
  await using setup = await oauthSetup();
  const server = serverAt(up.url);
  await login(setup, server);

  // A step-up: the server asks for more scope than the login granted.
  const session = await setup.session(server);
  await assert.rejects(() => session.callTool("write", {}), /needs a login/);
  const stepUp = authCheck(await setup.oauth.authState(server));
  assert.equal(stepUp.ok, false);
  assert.match(stepUp.detail, /^needs login: the server asks for more scope \(write\)/);
  assert.equal(
    stepUp.fix,
    "log in again for the wider scope (write): engram mcp auth login docs",
  );

  await login(setup, server);
  await setup.oauth.vault.markRefreshFailing("docs", "the authorization server answered 503");
  const failing = authCheck(await setup.oauth.authState(server));
  assert.deepEqual(failing, {
    ok: false,
    detail: "refresh failing: the authorization server answered 503",
    fix: "engram tries again on the next call; or log in again with: engram mcp auth login docs",
  });
});

/**
 * @module `engram mcp review` of a remote server behind OAuth (tests/fixtures/oauth/), through the
 * real CLI: off a terminal (`--yes`) nobody can open a login URL, so the failed start names the
 * login command and leaves the server disabled, and review goes through once the login was made;
 * on a terminal (a pseudo-terminal from util-linux `script`) review asks to log in, shows the URL,
 * takes the browser's callback and goes on to the picks — and a "no", or a login that fails, leaves
 * it as a failed start.
 * No token appears on the screen or in the output.
 */
import assert from "node:assert/strict";
import { playBrowser, startOAuthUpstream } from "../../fixtures/oauth/oauth_upstream.ts";
import { type CliResult, runEngram, tempDir } from "../../helpers.ts";
import { HAS_SCRIPT } from "../_util.ts";
import { loginThroughCli, onTerminal, printedUrl } from "./_oauth_cli.ts";

/** A data dir where the remote server `docs` at `url` was imported; `run` runs `engram mcp …`. */
async function imported(url: string) {
  const dir = await tempDir("engram-review-login-");
  const run = (args: string[]): Promise<CliResult> =>
    runEngram(["mcp", ...args], { dataDir: dir.path });
  await Deno.writeTextFile(
    `${dir.path}/claude.json`,
    JSON.stringify({ mcpServers: { docs: { url } } }),
  );
  const r = await run(["import", "claude.json"]);
  assert.equal(r.code, 0, r.stderr);
  return {
    dir: dir.path,
    run,
    server: async () =>
      (JSON.parse((await run(["servers", "--json"])).stdout) as Record<string, unknown>[])
        .find((s) => s.name === "docs")!,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

const LOGIN_QUESTION =
  "docs: the server requires an OAuth login: not logged in; log in now (engram prints a URL to open in a browser)? [y/N] ";

Deno.test("mcp review --yes of a server that needs an OAuth login names the login command and leaves it disabled; after the login it goes through", async () => {
  await using up = await startOAuthUpstream();
  await using s = await imported(up.url);
  const r = await s.run(["review", "docs", "--approve", "echo", "--expose", "read", "--yes"]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^4\. docs did not start: initialize failed: the server requires an OAuth login: not logged in\n {3}fix: log in with: engram mcp auth login docs\n {3}docs is left disabled; run engram mcp review docs again with the fix$/m,
  );
  assert.doesNotMatch(r.stdout + r.stderr, /check the URL|open this URL/);
  assert.equal(up.counts.authorize, 0, "nobody was there to log in");
  assert.equal((await s.server()).enabled, false);

  const json = await s.run(["review", "docs", "--approve", "echo", "--yes", "--json"]);
  assert.equal(json.code, 1, json.stderr);
  const account = JSON.parse(json.stdout);
  assert.deepEqual(account.steps.map((x: { step: string }) => x.step), ["start", "login"]);
  assert.deepEqual(account.steps[1], { step: "login", logged_in: false, asked: false });
  assert.equal(account.stopped, "the start failed (initialize)");

  const login = await loginThroughCli(s.dir);
  assert.equal(login.code, 0, login.stderr);
  const again = await s.run(["review", "docs", "--approve", "echo", "--expose", "read", "--yes"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.match(again.stdout, /^4\. consent approved, enabled, and it started/m);
  assert.match(again.stdout, /^agents now see: mcp_docs_echo$/m);
  for (const secret of up.secrets()) {
    for (const out of [r, json, again]) {
      assert.ok(!(out.stdout + out.stderr).includes(secret), "a secret was printed");
    }
  }
});

Deno.test("mcp review on a terminal logs in to a server that needs it: asked, the URL shown, the callback taken, then the picks; no leaves it disabled", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using up = await startOAuthUpstream();
  await using s = await imported(up.url);

  {
    await using no = onTerminal(["mcp", "review", "docs"], s.dir);
    await no.waitFor("record consent, enable and start docs? [y/N] ");
    await no.type("y\n");
    await no.waitFor(LOGIN_QUESTION);
    await no.type("n\n");
    const { code, screen } = await no.done();
    assert.equal(code, 1, screen);
    assert.match(screen, /^ {3}fix: log in with: engram mcp auth login docs$/m);
    assert.equal(up.counts.authorize, 0, "no said no login");
    assert.equal((await s.server()).enabled, false);
  }

  await using t = onTerminal(["mcp", "review", "docs", "--expose", "read"], s.dir);
  await t.waitFor("record consent, enable and start docs? [y/N] ");
  await t.type("y\n");
  await t.waitFor(LOGIN_QUESTION);
  await t.type("y\n");
  await t.waitFor(
    /^ {3}to log in to upstream "docs", open this URL in a browser \(engram waits for it to come back to http:\/\/127\.0\.0\.1:\d+\/callback\):\n/m,
  );
  const url = printedUrl(await t.waitFor(/^ {5}http\S+\n/m));
  assert.ok(url?.startsWith(`${up.origin}/authorize?`), t.screen());
  assert.equal((await playBrowser(url!)).status, 200);
  await t.waitFor(
    /^ {3}logged in to upstream "docs": token valid until \S+Z, refreshed automatically; scope: none named\n/m,
  );
  await t.waitFor(/^4\. consent approved, enabled, and it started/m);
  await t.waitFor("approve which (names or globs, separated by spaces; empty: none)? ");
  await t.type("echo\n");
  const { code, screen } = await t.done();
  assert.equal(code, 0, screen);
  assert.match(screen, /^agents now see: mcp_docs_echo$/m);
  assert.equal((await s.server()).enabled, true);
  for (const secret of up.secrets()) assert.ok(!screen.includes(secret), "a secret was shown");
  const report = await s.run(["report", "--json"]);
  assert.match(report.stdout, /logged in \(1 authorization\(s\), scope none named\)/);
});

Deno.test("mcp review on a terminal: a login that fails (a callback with another state) is said, and the server is left disabled", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using up = await startOAuthUpstream({ callback: "wrong_state" });
  await using s = await imported(up.url);
  await using t = onTerminal(["mcp", "review", "docs"], s.dir);
  await t.waitFor("record consent, enable and start docs? [y/N] ");
  await t.type("y\n");
  await t.waitFor(LOGIN_QUESTION);
  await t.type("y\n");
  const url = printedUrl(await t.waitFor(/^ {5}http\S+\n/m));
  await playBrowser(url!);
  const { code, screen } = await t.done();
  assert.equal(code, 1, screen);
  assert.match(
    screen,
    /^ {3}the login failed: upstream "docs": OAuth check state failed \(the callback must carry the state engram sent\): the callback carried another state than engram sent \(a forged or stale callback\); engram will not log in to it$/m,
  );
  assert.match(
    screen,
    /^4\. docs did not start: initialize failed: the server requires an OAuth login: not logged in\n {3}fix: log in with: engram mcp auth login docs\n {3}docs is left disabled; run engram mcp review docs again with the fix$/m,
  );
  assert.equal((await s.server()).enabled, false);
  assert.equal(up.counts.token, 0, "no code was exchanged");
});

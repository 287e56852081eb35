/**
 * @module `engram mcp auth login|status|logout` end to end against a loopback OAuth upstream
 * (tests/fixtures/oauth/): the test plays the person's browser with the URL the login prints;
 * then calls work, status says logged in, logout forgets, and a call without a login fails with
 * the fix — in `engram mcp call` and inside `engram stdio`, where nobody can log in. No token or
 * code appears in any output, `--json` included, or in the clear in the database (audit rows and
 * traces live there).
 */
import assert from "node:assert/strict";
import { connectStdio, resultText } from "../../helpers.ts";
import { startOAuthUpstream } from "../../fixtures/oauth/oauth_upstream.ts";
import { databaseText } from "../../mcp/client/oauth/_oauth_setup.ts";
import { configSetup, FIXTURE } from "../_signed_upstreams.ts";
import { assertFails, assertOk } from "../_util.ts";
import { loginThroughCli } from "./_oauth_cli.ts";

/** The config of remote server `docs` at `url`, and a stdio server `files` for the refusal. */
function yaml(url: string): string {
  return [
    "mcp:",
    "  request_timeout_ms: 10000",
    "  mcp_servers:",
    "    - name: docs",
    "      transport: http",
    `      url: ${url}`,
    "      client_consent: approved",
    "    - name: files",
    "      transport: stdio",
    "      command: deno",
    `      args: ["run", "${FIXTURE("well_behaved")}"]`,
    "",
  ].join("\n");
}

Deno.test("mcp auth: login prints the URL and takes the callback; call, status, logout; no token anywhere", async () => {
  await using up = await startOAuthUpstream();
  await using s = await configSetup(yaml(up.url));
  const outputs: string[] = [];
  const run = async (args: string[]) => {
    const r = await s.run(args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };

  const login = await loginThroughCli(s.dir);
  outputs.push(login.stdout, login.stderr);
  assert.equal(login.code, 0, login.stderr);
  assert.match(
    login.stdout,
    /^to log in to upstream "docs", open this URL in a browser \(engram waits for it to come back to http:\/\/127\.0\.0\.1:\d+\/callback\):\n\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+\n\nlogged in to upstream "docs": token valid until \d{4}-\d\d-\d\dT[\d:.]+Z, refreshed automatically; scope: none named\n$/,
  );
  assert.ok(login.url.startsWith(`${up.origin}/authorize?`));

  const call = await run(["call", "docs", "echo", "--args", '{"text":"hi"}', "--unapproved"]);
  assertOk(call);
  assert.match(call.stdout, /echo: \{"text":"hi"\}/);

  const status = await run(["auth", "status", "--json"]);
  assertOk(status);
  const [docs] = JSON.parse(status.stdout);
  assert.deepEqual(
    [docs.server, docs.transport, docs.state, docs.refreshable, docs.client],
    ["docs", "http", "logged_in", true, "dynamic"],
  );
  assert.equal(JSON.parse(status.stdout).length, 1, "stdio servers are not listed");
  const text = await run(["auth", "status"]);
  assertOk(text);
  assert.match(
    text.stdout,
    /^server\s+transport\s+login\ndocs\s+http\s+logged in until \S+Z, refreshed automatically\n$/,
  );

  const logout = await run(["auth", "logout", "docs"]);
  assertOk(logout);
  assert.equal(
    logout.stdout,
    'logged out of upstream "docs": its tokens and client registration are forgotten\n',
  );
  const again = await run(["auth", "logout", "docs"]);
  assert.equal(again.stdout, 'nothing is kept for upstream "docs"; it was not logged in\n');

  const refused = await run(["call", "docs", "echo", "--unapproved"]);
  assertFails(
    refused,
    1,
    'forbidden: upstream "docs" needs a login: not logged in; log in with: engram mcp auth login docs',
  );
  const needs = await run(["auth", "status", "docs"]);
  assert.match(
    needs.stdout,
    /docs\s+http\s+needs login: not logged in\n\ndocs: engram mcp auth login docs\n$/,
  );

  const report = await run(["report", "--json"]);
  outputs.push(report.stdout);
  const stored = await databaseText(s.dir);
  const secrets = up.secrets();
  assert.ok(secrets.length >= 3, "a code, an access and a refresh token were issued");
  for (const secret of secrets) {
    for (const out of outputs) assert.ok(!out.includes(secret), `a secret was printed:\n${out}`);
    assert.ok(!stored.includes(secret), "a secret is in the database in the clear");
  }
  assert.match(stored, /mcp auth login/, "the login is an operator action in the audit log");
});

Deno.test("mcp auth: a stdio server, an unknown one and a missing subcommand are refused with the fix", async () => {
  await using up = await startOAuthUpstream();
  await using s = await configSetup(yaml(up.url));
  assertFails(
    await s.run(["auth", "login", "files"]),
    2,
    'server "files" is a stdio server: it gets its credentials from its env, not from an OAuth login; only http and sse servers log in',
  );
  assertFails(
    await s.run(["auth", "status", "nope"]),
    1,
    'not_found: no upstream server named "nope" (known: docs, files); list them with: engram mcp servers',
  );
  assertFails(await s.run(["auth"]), 2, "missing subcommand login, status or logout");
  assertFails(
    await s.run(["auth", "lgin"]),
    2,
    'unknown auth command "lgin"; did you mean "login"?',
  );
  const help = await s.run(["auth", "--help"]);
  assertOk(help);
  assert.match(help.stdout, /engram mcp auth login NAME/);
});

Deno.test("inside engram stdio an exposed tool of a server that needs a login fails with the fix", async () => {
  await using up = await startOAuthUpstream();
  await using s = await configSetup(yaml(up.url));
  assert.equal((await loginThroughCli(s.dir)).code, 0);
  assertOk(await s.run(["approvals", "approve", "docs", "echo", "--expose", "read"]));
  up.revokeAccessTokens();
  up.failRefreshes("invalid_grant");
  await using agent = await connectStdio(s.dir, { env: { ENGRAM_LOG_LEVEL: "debug" } });
  const tools = await agent.client.listTools();
  assert.ok(tools.tools.some((t) => t.name === "mcp_docs_echo"), "the approved tool is offered");
  const result = await agent.client.callTool({ name: "mcp_docs_echo", arguments: { text: "x" } });
  assert.equal(result.isError, true);
  assert.match(
    resultText(result),
    /upstream "docs" needs a login: the authorization server refused the refresh \(invalid_grant: fixture: invalid_grant\); log in with: engram mcp auth login docs/,
  );
  const status = JSON.parse((await s.run(["auth", "status", "--json"])).stdout);
  assert.equal(status[0].state, "needs_login");
  const logged = agent.stderr() + resultText(result);
  for (const secret of up.secrets()) assert.ok(!logged.includes(secret), "a secret was logged");
});

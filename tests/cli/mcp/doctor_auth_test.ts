/**
 * @module `engram mcp doctor NAME` on a remote server behind OAuth (tests/fixtures/oauth/), through
 * the real CLI: before a login its `auth` check and `initialize` fail with the login command as
 * the fix (not "check the URL"), `--static` reads the state without connecting, `--json` carries
 * `auth_state`; after `engram mcp auth login` every check passes. No token appears in any output.
 */
import assert from "node:assert/strict";
import { startOAuthUpstream } from "../../fixtures/oauth/oauth_upstream.ts";
import { configSetup } from "../_signed_upstreams.ts";
import { loginThroughCli } from "./_oauth_cli.ts";

/** The config of remote server `docs` at `url`. */
function yaml(url: string): string {
  return [
    "mcp:",
    "  request_timeout_ms: 10000",
    "  mcp_servers:",
    "    - name: docs",
    "      transport: http",
    `      url: ${url}`,
    "      client_consent: approved",
    "",
  ].join("\n");
}

interface Check {
  rule: string;
  result: string;
  detail: string;
  fix?: string;
}

Deno.test("mcp doctor: a server that needs an OAuth login fails auth and initialize with the login fix; after the login it passes", async () => {
  await using up = await startOAuthUpstream();
  await using s = await configSetup(yaml(up.url));
  const outputs: string[] = [];

  const quiet = await s.run(["doctor", "docs", "--static"]);
  outputs.push(quiet.stdout, quiet.stderr);
  assert.equal(quiet.code, 0, quiet.stdout + quiet.stderr);
  assert.match(
    quiet.stdout,
    /^ {2}PASS auth\s+no auth needed \(nothing kept; none was asked for\)$/m,
  );
  assert.equal(up.counts.mcp, 0, "--static connects to nothing");

  const before = await s.run(["doctor", "docs"]);
  outputs.push(before.stdout, before.stderr);
  assert.equal(before.code, 1, before.stdout + before.stderr);
  assert.match(
    before.stdout,
    /^ {2}FAIL auth\s+needs login: not logged in\n\s+fix: log in with: engram mcp auth login docs$/m,
  );
  assert.match(
    before.stdout,
    /^ {2}FAIL initialize\s+the server requires an OAuth login: not logged in\n\s+fix: log in with: engram mcp auth login docs$/m,
  );
  assert.doesNotMatch(before.stdout, /check the URL/);
  // The auth check sits between the static checks and the live ones.
  assert.ok(before.stdout.indexOf("auth ") < before.stdout.indexOf("launch "), before.stdout);

  const json = await s.run(["doctor", "docs", "--json"]);
  outputs.push(json.stdout, json.stderr);
  const [docs] = JSON.parse(json.stdout).servers;
  assert.equal(docs.auth_state, "needs_login");
  const auth = (docs.checks as Check[]).find((c) => c.rule === "auth")!;
  assert.deepEqual(auth, {
    rule: "auth",
    result: "FAIL",
    detail: "needs login: not logged in",
    fix: "log in with: engram mcp auth login docs",
  });

  const login = await loginThroughCli(s.dir);
  outputs.push(login.stdout, login.stderr);
  assert.equal(login.code, 0, login.stderr);

  const after = await s.run(["doctor", "docs"]);
  outputs.push(after.stdout, after.stderr);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.match(after.stdout, /^ {2}PASS auth\s+logged in until \S+Z, refreshed automatically$/m);
  assert.match(after.stdout, /^ {2}PASS initialize\s+initialized in /m);
  assert.match(after.stdout, /^all 1 server\(s\) pass$/m);

  for (const secret of up.secrets()) {
    for (const out of outputs) assert.ok(!out.includes(secret), `a secret was printed:\n${out}`);
  }
});

Deno.test("mcp doctor: an authorization server that fails a check of engram's is refused naming it", async () => {
  await using other = await startOAuthUpstream();
  await using up = await startOAuthUpstream({
    resourceMetadataUrl: `${other.origin}/.well-known/oauth-protected-resource/mcp`,
  });
  await using s = await configSetup(yaml(up.url));
  const r = await s.run(["doctor", "docs", "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const init = (JSON.parse(r.stdout).servers[0].checks as Check[])
    .find((c) => c.rule === "initialize")!;
  assert.equal(init.result, "FAIL");
  assert.match(
    init.detail,
    /OAuth check metadata_origin failed \(OAuth metadata must come from the origin it describes\)/,
  );
  assert.match(
    init.fix!,
    /fails its OAuth check metadata_origin; ask the server's operator to fix it/,
  );
});

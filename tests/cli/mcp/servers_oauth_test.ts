/**
 * @module What `engram mcp set` and `engram mcp remove` do about a stored remote server's OAuth,
 * through the real CLI against a loopback OAuth upstream (tests/fixtures/oauth/): `set` edits the
 * `oauth.*` keys of its entry, each checked like the config file's (a secret only as a `${VAR}`
 * reference, a port in range, only for http and sse servers), and `remove` forgets the server's
 * login with it, so a later server of that name starts without one.
 */
import assert from "node:assert/strict";
import { startOAuthUpstream } from "../../fixtures/oauth/oauth_upstream.ts";
import { databaseText } from "../../mcp/client/oauth/_oauth_setup.ts";
import { configSetup, FIXTURE } from "../_signed_upstreams.ts";
import { assertOk } from "../_util.ts";
import { loginThroughCli } from "./_oauth_cli.ts";

/** A data dir with `docs` (http, at `url`) and `tool` (stdio) imported from an mcp.json. */
async function imported(url: string) {
  const s = await configSetup("mcp:\n  stdio_allowed_commands: [deno]\n", {
    env: { USER: "alice" },
  });
  await Deno.writeTextFile(
    `${s.dir}/mcp.json`,
    JSON.stringify({
      mcpServers: {
        docs: { type: "http", url },
        tool: { command: "deno", args: ["run", FIXTURE("well_behaved")] },
      },
    }),
  );
  const r = await s.run(["import", "mcp.json"]);
  assert.equal(r.code, 0, r.stderr);
  return s;
}

Deno.test("mcp set: the oauth keys of a remote server, each checked; the client then counts as pre-registered", async () => {
  await using up = await startOAuthUpstream();
  await using s = await imported(up.url);
  const set = await s.run([
    "set",
    "docs",
    "oauth.client_id=engram-client",
    "oauth.client_secret=${DOCS_CLIENT_SECRET}",
    "oauth.scopes=read, write",
    "oauth.redirect_port=8765",
  ]);
  assertOk(set);
  assert.equal(
    set.stdout,
    [
      "changed upstream server docs:",
      "  oauth.client_id: (unset) → engram-client",
      "  oauth.client_secret: (unset) → ${DOCS_CLIENT_SECRET}",
      '  oauth.scopes: (unset) → ["read","write"]',
      "  oauth.redirect_port: (unset) → 8765",
      "",
    ].join("\n"),
  );
  const [status] = JSON.parse((await s.run(["auth", "status", "docs", "--json"])).stdout);
  assert.equal(status.client, "preregistered");

  const refused: [string[], RegExp][] = [
    [
      ["set", "tool", "oauth.client_id=x"],
      /^engram: server "tool" is a stdio server: it gets its credentials from its env, not from an OAuth login; oauth\.client_id applies to http and sse servers only/,
    ],
    [
      ["set", "docs", "oauth.client_secret=hunter2"],
      /^engram: oauth\.client_secret: must be a \$\{VAR\} reference .*; allowed: a \$\{VAR\} reference, never the secret itself/,
    ],
    [
      ["set", "docs", "oauth.redirect_port=70000"],
      /^engram: oauth\.redirect_port: .*; allowed: a port from 1 to 65535/,
    ],
    [
      ["set", "docs", "oauth.client_id_metadata_document_url=http://example.com/client.json"],
      /^engram: oauth\.client_id_metadata_document_url: must be an https:\/\/ URL with a path/,
    ],
    [
      ["set", "docs", "--unset", "oauth.client_id"],
      /^engram: oauth\.client_secret: client_secret needs client_id: a secret belongs to a pre-registered client/,
    ],
    [
      ["set", "docs", "oauth.nope=1"],
      /^engram: unknown key "oauth\.nope"; engram mcp set changes: /,
    ],
  ];
  for (const [args, message] of refused) {
    const r = await s.run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }

  const unset = await s.run([
    "set",
    "docs",
    "--unset",
    "oauth.client_secret",
    "--unset",
    "oauth.client_id",
    "--unset",
    "oauth.redirect_port",
    "--unset",
    "oauth.scopes",
  ]);
  assertOk(unset);
  assert.match(unset.stdout, /^ {2}oauth\.client_secret: \$\{DOCS_CLIENT_SECRET\} → \(unset\)$/m);
  const [after] = JSON.parse((await s.run(["auth", "status", "docs", "--json"])).stdout);
  assert.equal(after.client, null);
  const report = await s.run(["report", "--json"]);
  assert.match(report.stdout, /oauth\.client_id: \(unset\) → engram-client/);
});

Deno.test("mcp remove forgets the server's OAuth login: a later server of that name must log in anew", async () => {
  await using up = await startOAuthUpstream();
  await using s = await imported(up.url);
  const login = await loginThroughCli(s.dir);
  assert.equal(login.code, 0, login.stderr);
  const [before] = JSON.parse((await s.run(["auth", "status", "docs", "--json"])).stdout);
  assert.equal(before.state, "logged_in");

  const removed = await s.run(["remove", "docs"]);
  assertOk(removed);
  assert.equal(
    removed.stdout,
    "removed upstream server docs (import); its OAuth login is forgotten\n",
  );
  const plain = await s.run(["remove", "tool"]);
  assert.equal(plain.stdout, "removed upstream server tool (import)\n", "no login, nothing said");

  const stored = await databaseText(s.dir);
  for (const secret of up.secrets()) assert.ok(!stored.includes(secret));
  const again = await s.run(["import", "mcp.json"]);
  assert.equal(again.code, 0, again.stderr);
  const [status] = JSON.parse((await s.run(["auth", "status", "docs", "--json"])).stdout);
  assert.equal(status.state, "no_auth");
  const report = await s.run(["report", "--json"]);
  assert.match(report.stdout, /forgot its OAuth login \(tokens and client registration\)/);
});

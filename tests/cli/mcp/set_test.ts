/**
 * @module `engram mcp set` through the real CLI: editing an imported server key by key, the
 * signature dropped when the launch changes (and kept when it does not), each change recorded as
 * an operator action with the OS user, env values never shown, and every refusal a user can hit.
 */
import assert from "node:assert/strict";
import { configSetup, FIXTURE } from "../_signed_upstreams.ts";

const WELL_BEHAVED = FIXTURE("well_behaved");

/** A config allowing deno, with `tool` (stdio) and `remote` (http) imported. */
async function imported(yaml = "mcp:\n  stdio_allowed_commands: [deno]\n") {
  const s = await configSetup(yaml, { env: { USER: "alice" } });
  await Deno.writeTextFile(
    `${s.dir}/mcp.json`,
    JSON.stringify({
      mcpServers: {
        tool: { command: "deno", args: ["run", WELL_BEHAVED] },
        remote: { type: "http", url: "https://example.com/mcp" },
      },
    }),
  );
  const r = await s.run(["import", "mcp.json"]);
  assert.equal(r.code, 0, r.stderr);
  return s;
}

/** The check `rule` of `server` in `engram mcp doctor --static --json`. */
async function check(s: Awaited<ReturnType<typeof imported>>, server: string, rule: string) {
  const r = await s.run(["doctor", server, "--static", "--json"]);
  const checks = JSON.parse(r.stdout).servers[0].checks as { rule: string; result: string }[];
  return checks.find((c) => c.rule === rule)?.result;
}

Deno.test("mcp set: a launch change drops the stored signature and says so; other keys keep it; each change is an operator action", async () => {
  await using s = await imported();
  const key = JSON.parse((await s.run(["keys", "generate", "--out", "k", "--json"])).stdout);
  assert.equal((await s.run(["sign", "tool", "--key", key.file])).code, 0);
  assert.equal(await check(s, "tool", "manifest_digest"), "PASS");

  const launch = await s.run(["set", "tool", "network=true", "sandbox_profile=standard"]);
  assert.equal(launch.code, 0, launch.stderr);
  assert.equal(
    launch.stdout,
    [
      "changed upstream server tool:",
      "  network: false → true",
      "  sandbox_profile: restricted → standard",
      "  manifest_digest and manifest_signature: dropped (the launch changed)",
      "signature dropped: re-sign with engram mcp sign tool or engram mcp review tool",
      "",
    ].join("\n"),
  );
  const tool = JSON.parse((await s.run(["servers", "--json"])).stdout)
    .find((x: { name: string }) => x.name === "tool");
  assert.deepEqual([tool.network, tool.sandbox_profile], [true, "standard"]);
  assert.equal(await check(s, "tool", "manifest_digest"), "FAIL");

  assert.equal((await s.run(["sign", "tool", "--key", key.file])).code, 0);
  const other = await s.run([
    "set",
    "tool",
    "trust=verified",
    "expose.tier=read",
    "request_timeout_ms=5000",
    "--json",
  ]);
  assert.equal(other.code, 0, other.stderr);
  assert.deepEqual(JSON.parse(other.stdout), {
    server: "tool",
    changes: [
      "trust: user_added → verified",
      "expose.tier: (unset) → read",
      "request_timeout_ms: (unset) → 5000",
    ],
    signature_dropped: false,
  });
  assert.equal(await check(s, "tool", "manifest_digest"), "PASS", "the launch did not change");

  const same = await s.run(["set", "tool", "trust=verified"]);
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stdout.trim(), "nothing changed: tool already has those values");

  const report = JSON.parse((await s.run(["report", "--json"])).stdout);
  const sets = report.operator_actions.filter((a: { command: string }) => a.command === "mcp set");
  assert.equal(sets.length, 2, "an edit that changed nothing is not an action");
  assert.deepEqual(
    { ...sets[0], at: undefined },
    {
      at: undefined,
      user: "alice",
      command: "mcp set",
      server: "tool",
      changes: [
        "network: false → true",
        "sandbox_profile: restricted → standard",
        "manifest_digest and manifest_signature: dropped (the launch changed)",
      ],
    },
  );
  assert.match(sets[0].at, /^\d{4}-\d\d-\d\dT/);
  assert.equal(report.calls, 0, "operator actions are not counted as calls");
});

Deno.test("mcp set: env values are set and unset by key, references shown, literal values never", async () => {
  await using s = await imported();
  const set = await s.run(["set", "tool", "env.API_TOKEN=${MY_TOKEN}", "env.MODE=fast"]);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /env\.API_TOKEN: \(unset\) → \$\{MY_TOKEN\}/);
  assert.match(set.stdout, /env\.MODE: \(unset\) → a literal value \(not shown\)/);
  const unset = await s.run(["set", "tool", "--unset", "env.MODE"]);
  assert.equal(unset.code, 0, unset.stderr);
  assert.match(unset.stdout, /env\.MODE: a literal value \(not shown\) → \(unset\)/);
  const allow = await s.run(["set", "tool", "allow_env=NODE_OPTIONS,PYTHONPATH"]);
  assert.equal(allow.code, 0, allow.stderr);
  assert.match(allow.stdout, /allow_env: (\[\]|\(unset\)) → \["NODE_OPTIONS","PYTHONPATH"\]/);
  const report = await s.run(["report"]);
  assert.doesNotMatch(report.stdout, /fast/, "a literal env value is not in the audit log");
  assert.match(
    report.stdout,
    /alice: engram mcp set tool\n\s+env\.API_TOKEN: \(unset\) → \$\{MY_TOKEN\}/,
  );

  const secret = await s.run(["set", "tool", "env.API_TOKEN=ghp_secret"]);
  assert.equal(secret.code, 2);
  assert.match(
    secret.stderr,
    /^engram: env\.API_TOKEN looks like a secret written out; store a reference instead: env\.API_TOKEN='\$\{API_TOKEN\}', and export API_TOKEN where engram runs/,
  );
  const db = await Deno.readFile(`${s.dir}/engram.db`);
  assert.ok(!new TextDecoder().decode(db).includes("ghp_secret"), "the secret is not stored");
});

Deno.test("mcp set: every bad key or value is a usage error naming the key and what is allowed", async () => {
  await using s = await imported();
  const cases: [string[], RegExp][] = [
    [["network=maybe"], /^engram: network: .*; allowed: true or false; see: engram mcp set --help/],
    [
      ["sandbox_profile=none"],
      /^engram: sandbox_profile: .*; allowed: restricted, standard or disabled/,
    ],
    [["expose.tier=root"], /^engram: expose\.tier: .*; allowed: read, write or admin/],
    [["request_timeout_ms=5"], /^engram: request_timeout_ms: .*; allowed: a whole number/],
    [
      ["trust=builtin"],
      /^engram: trust builtin is reserved for servers engram itself provides; allowed: verified or user_added/,
    ],
    [
      ["args=-y pkg"],
      /^engram: args is not a JSON array: "-y pkg"; write it as args='\["-y","pkg"\]'/,
    ],
    [
      ["env.ENGRAM_DATA_DIR=x"],
      /^engram: env\.ENGRAM_DATA_DIR: ENGRAM_\* variables are engram's own/,
    ],
    [
      ["command=bash"],
      /^engram: unknown key "command"; engram mcp set changes: sandbox_profile, network, cwd, args, env\.NAME, allow_env, request_timeout_ms, expose\.tier, trust/,
    ],
    [["network"], /^engram: expected KEY=VALUE, got "network"/],
    [[], /^engram: nothing to change: give KEY=VALUE or --unset KEY/],
    [["cwd=/srv", "--unset", "cwd"], /^engram: cwd is both set and unset; give one of them/],
  ];
  for (const [args, message] of cases) {
    const r = await s.run(["set", "tool", ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /\nusage: engram mcp set NAME KEY=VALUE/);
  }
  const http = await s.run(["set", "remote", "sandbox_profile=standard"]);
  assert.equal(http.code, 2);
  assert.match(
    http.stderr,
    /^engram: server "remote" is reached over http, not started: sandbox_profile applies to stdio servers only/,
  );
  const unknown = await s.run(["set", "nope", "trust=verified"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no upstream server named "nope"/);
  const report = JSON.parse((await s.run(["report", "--json"])).stdout);
  assert.deepEqual(report.operator_actions, [], "a refused edit changes nothing");
});

Deno.test("mcp set: a server defined in the config file is refused, naming the file, and left as it is", async () => {
  await using s = await imported(`mcp:
  stdio_allowed_commands: [deno]
  mcp_servers:
    - name: files
      transport: stdio
      command: deno
`);
  const r = await s.run(["set", "files", "network=true"]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr.trim(),
    `engram: conflict: server "files" is defined in ${s.dir}/config/engram.yaml:4; config entries are edited in the file: set network there`,
  );
  const files = JSON.parse((await s.run(["servers", "--json"])).stdout)[0];
  assert.equal(files.network, false);
});

Deno.test("mcp set: a request timeout above mcp.request_timeout_ms is stored, with a note that the ceiling bounds it", async () => {
  await using s = await imported(
    "mcp:\n  stdio_allowed_commands: [deno]\n  request_timeout_ms: 2000\n",
  );
  const r = await s.run(["set", "tool", "request_timeout_ms=9000"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /note: mcp\.request_timeout_ms \(2000 ms in .*engram\.yaml\) bounds every server, so tool waits at most that long; raise it there for 9000 ms to apply/,
  );
  const next = await s.run(["set", "tool", "trust=verified"]);
  assert.equal(next.stderr, "", "the note is given when the timeout is set, not on every edit");
});

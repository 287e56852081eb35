/** The launch rules as a pure evaluation: command shape, allowlist matching, sandbox visibility, http. */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { HttpServerSchema } from "../../../../src/config/mcp_servers.ts";
import { LAUNCH_HELPERS } from "../../../../src/config/permissions.ts";
import { commandChecks, programName } from "../../../../src/mcp/client/launch/command_rules.ts";
import { manifestDigest } from "../../../../src/mcp/client/launch/launch_manifest.ts";
import { loaderKey } from "../../../../src/mcp/client/launch/env_loader.ts";
import { evaluateLaunch } from "../../../../src/mcp/client/launch/launch_rules.ts";
import { tempDir } from "../../../helpers.ts";
import { scratchDir } from "./_scratch.ts";
import {
  BWRAP,
  DENO_HIDDEN,
  launchable,
  stdioServer,
  TEST_DENO,
  testFacts,
  testSigner,
} from "../launch_setup.ts";

const signer = await testSigner();

function firstFailure(command: string | string[]) {
  return commandChecks(command).find((c) => !c.ok);
}

Deno.test("command rules: shells, script hosts and launchers are blocked by name and by path", () => {
  const cases: [string, RegExp][] = [
    ["sh", /is a shell/],
    ["/bin/bash", /is a shell/],
    ["/usr/local/bin/zsh-5.9", /is a shell/],
    ["fish", /is a shell/],
    ["ksh", /is a shell/],
    ["csh", /is a shell/],
    ["tcsh", /is a shell/],
    ["pwsh", /is a shell/],
    ["PowerShell.exe", /is a shell/],
    ["C:\\Windows\\System32\\cmd.exe", /is a shell/],
    ["/bin/busybox", /is a shell/],
    ["osascript", /is a script host/],
    ["env", /launches another command named in its arguments/],
    ["/usr/bin/env", /launches another command/],
    ["sudo", /launches another command/],
    ["nohup", /launches another command/],
    ["bwrap", /is a program engram runs itself/],
    ["/usr/bin/kill", /is a program engram runs itself/],
  ];
  for (const [command, message] of cases) {
    const failure = firstFailure(command);
    assert.equal(failure?.rule, "shell", command);
    assert.match(failure!.detail, message, command);
    assert.ok(failure!.fix.length > 0);
  }
  for (
    const fine of ["npx", "node", "deno", "uvx", "docker", "/usr/bin/node", "python3", "shellcheck"]
  ) {
    assert.equal(firstFailure(fine), undefined, fine);
  }
  assert.equal(programName("/opt/bash5.2"), "bash");
});

Deno.test("command rules: every shell metacharacter and NUL is refused, named", () => {
  for (const c of ["|", "&", ";", "<", ">", "$", "`", "(", ")", "{", "}"]) {
    const failure = firstFailure(`/srv/a${c}b`);
    assert.equal(failure?.rule, "metacharacters", c);
    assert.ok(failure!.detail.includes(`"${c}"`), failure!.detail);
  }
  assert.match(firstFailure("/srv/a\0b")!.detail, /\(a NUL byte\)/);
  assert.match(firstFailure("/srv/a\rb")!.detail, /\(a carriage return\)/);
  assert.ok(!firstFailure("/srv/a\0b")!.detail.includes("\0"), "never printed raw");
});

Deno.test("command rules: one token; a list is refused with the split spelled out", () => {
  const list = firstFailure(["npx", "-y", "pkg"])!;
  assert.equal(list.rule, "command_token");
  assert.equal(
    list.fix,
    'put the executable in command and the rest in args, e.g. command: "npx", args: ["-y","pkg"]',
  );
  assert.match(firstFailure("npx -y pkg")!.detail, /is more than one word/);
  assert.match(firstFailure("")!.detail, /command is empty/);
  assert.match(firstFailure("bin/server")!.detail, /is a relative path/);
});

Deno.test("allowlist: an exact entry, global or per server; no basename matching", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const ruleOf = async (command: string, perServer: string[], global: string[] = []) => {
    const server = await launchable(signer, {
      name: "s",
      command,
      stdio_allowed_commands: perServer,
    });
    const verdict = await evaluateLaunch(server, { ...facts, allowedCommands: global });
    return verdict.checks.find((c) => c.rule === "allowlist")!;
  };
  assert.equal(
    (await ruleOf("deno", [], ["deno"])).detail,
    'command "deno" is in mcp.stdio_allowed_commands',
  );
  assert.equal(
    (await ruleOf("deno", ["deno"])).detail,
    'command "deno" is in the server\'s stdio_allowed_commands',
  );
  assert.equal((await ruleOf("/usr/bin/deno", ["deno"])).ok, false, "a path is not its name");
  assert.equal((await ruleOf("deno", ["/usr/bin/deno"])).ok, false, "a name is not a path");
});

Deno.test({
  name: "sandbox rule: a restricted command must be visible in the sandbox (under /usr or in cwd)",
  ignore: !BWRAP.ok,
  async fn() {
    await using dir = await scratchDir();
    const script = `${dir.path}/bin/server`;
    await Deno.mkdir(`${dir.path}/bin`);
    await Deno.writeTextFile(script, "#!/bin/sh\n", { mode: 0o755 });
    const facts = await testFacts(`${dir.path}/data`, { reviewKeys: [signer.reviewKey] });
    const hidden = await launchable(signer, {
      name: "s",
      command: script,
      sandbox_profile: "restricted",
    });
    const blocked = (await evaluateLaunch(hidden, facts)).blocked!;
    assert.equal(blocked.rule, "sandbox");
    assert.match(
      blocked.detail,
      /command resolves to .*\/bin\/server, which the restricted sandbox does not show/,
    );
    assert.match(blocked.fix, /install it under \/usr, or set cwd to the directory holding it/);
    const shown = await launchable(signer, {
      name: "s",
      command: script,
      sandbox_profile: "restricted",
      cwd: `${dir.path}/bin`,
    });
    assert.equal((await evaluateLaunch(shown, facts)).blocked, null);
  },
});

Deno.test("http servers: header references, consent and enabled are checked", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [], vars: { DOCS_TOKEN: "t" } });
  const base = HttpServerSchema.parse({
    name: "docs",
    transport: "http",
    url: "https://docs.example.com/mcp",
    headers: { Authorization: "Bearer ${DOCS_TOKEN}" },
    client_consent: "approved",
  });
  assert.equal((await evaluateLaunch(base, facts)).blocked, null);
  const missing = await evaluateLaunch(
    { ...base, headers: { Authorization: "Bearer ${NOPE}" } },
    facts,
  );
  assert.match(
    missing.blocked!.detail,
    /headers Authorization refers to \$\{NOPE\}, which is not set/,
  );
  assert.equal(
    (await evaluateLaunch({ ...base, client_consent: "pending" }, facts)).blocked?.rule,
    "client_consent",
  );
  assert.equal((await evaluateLaunch({ ...base, enabled: false }, facts)).blocked?.rule, "enabled");
});

Deno.test("a fresh YAML entry lists what is missing, in order", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  // A Deno the sandbox does not show (from a node_modules folder) gets its folder as cwd, as the
  // sandbox rule's fix says: wherever Deno is installed, only what a review adds is missing.
  const entry = {
    name: "new",
    command: TEST_DENO,
    ...(DENO_HIDDEN === null ? {} : { cwd: dirname(TEST_DENO) }),
  };
  const verdict = await evaluateLaunch(stdioServer(entry), facts);
  assert.deepEqual(verdict.checks.filter((c) => !c.ok).map((c) => c.rule), [
    "allowlist",
    "manifest_digest",
    "manifest_signature",
    "client_consent",
  ]);
  assert.equal(
    verdict.blocked?.fix,
    "after reviewing it, add it (exactly as written) to mcp.stdio_allowed_commands or to this server's stdio_allowed_commands",
  );
});

Deno.test("a stdio verdict carries the launch's digest and its cwd with ~ expanded", async () => {
  await using dir = await scratchDir();
  await using data = await tempDir();
  const facts = await testFacts(data.path, {
    reviewKeys: [signer.reviewKey],
    vars: { HOME: dir.path },
  });
  const server = await launchable(signer, { name: "s", command: "deno", cwd: "~/work" });
  const verdict = await evaluateLaunch(server, facts);
  assert.equal(verdict.digest, await manifestDigest(server));
  assert.equal(verdict.digest, server.manifest_digest);
  assert.equal(verdict.cwd, `${dir.path}/work`);
  assert.equal(verdict.blocked?.rule, "cwd", "the expanded path is the one judged");
  assert.equal(
    verdict.blocked?.detail,
    `cwd ${JSON.stringify(`${dir.path}/work`)} is not a directory`,
  );
  // A command that is not one plain executable has no digest; an http server has neither.
  const split = await evaluateLaunch(stdioServer({ name: "s", command: "npx -y pkg" }), facts);
  assert.equal(split.digest, undefined);
  assert.equal(split.cwd, undefined);
  const http = HttpServerSchema.parse({ name: "h", transport: "http", url: "https://x.test/mcp" });
  const remote = await evaluateLaunch(http, facts);
  assert.equal(remote.digest, undefined);
  assert.equal(remote.cwd, undefined);
});

Deno.test("command rules: each launch helper is refused with its own fix", () => {
  for (const [helper, fix] of LAUNCH_HELPERS) {
    assert.deepEqual(firstFailure(`/usr/bin/${helper}`), {
      rule: "shell",
      ok: false,
      detail: `command "/usr/bin/${helper}" is a program engram runs itself`,
      fix,
    });
  }
  assert.equal(
    firstFailure("kill")?.fix,
    "engram uses it to stop servers; name the server's own executable",
  );
  assert.equal(
    firstFailure("bwrap")?.fix,
    "set sandbox_profile: restricted and engram runs the server in bubblewrap itself",
  );
});

Deno.test("env_loader: loader keys are known by name and prefix, without case; others pass", () => {
  for (
    const key of [
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "DYLD_INSERT_LIBRARIES",
      "NODE_OPTIONS",
      "NODE_PATH",
      "PYTHONPATH",
      "PYTHONSTARTUP",
      "PYTHONHOME",
      "PERL5OPT",
      "PERL5LIB",
      "RUBYOPT",
      "RUBYLIB",
      "JAVA_TOOL_OPTIONS",
      "_JAVA_OPTIONS",
      "BASH_ENV",
      "ENV",
      "PATH",
      "Path",
      "GIT_SSH_COMMAND",
      "GIT_CONFIG_COUNT",
      "npm_config_registry",
      "DENO_DIR",
      "LUA_INIT_5_4",
    ]
  ) assert.ok(loaderKey(key), key);
  for (const key of ["API_KEY", "LOG_LEVEL", "NODE_ENV", "ENVIRONMENT", "TZ", "LANG", "DEBUG"]) {
    assert.equal(loaderKey(key), null, key);
  }
});

Deno.test("env_loader: a key named in allow_env (exactly as written) passes; the rule comes before the signature", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const allowed = await launchable(signer, {
    name: "s",
    command: "deno",
    env: { NODE_OPTIONS: "--max-old-space-size=512" },
    allow_env: ["NODE_OPTIONS"],
  });
  const verdict = await evaluateLaunch(allowed, facts);
  assert.equal(verdict.blocked, null);
  assert.equal(
    verdict.checks.find((c) => c.rule === "env_loader")?.detail,
    "loader keys NODE_OPTIONS are named in allow_env",
  );
  // Unsigned, and with a loader key: the loader key is what is reported first.
  const both = stdioServer({
    name: "s",
    command: "deno",
    stdio_allowed_commands: ["deno"],
    env: { node_options: "--require ./evil.cjs" },
    allow_env: ["NODE_OPTIONS"],
  });
  const blocked = (await evaluateLaunch(both, facts)).blocked!;
  assert.equal(blocked.rule, "env_loader");
  assert.match(blocked.detail, /^env "node_options" steers a loader or interpreter/);
  assert.match(blocked.fix, /allow_env: \[node_options\]/);
});

Deno.test("allow_run: the fix names the list that lacks the command", async () => {
  await using dir = await tempDir();
  const base = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const facts = { ...base, runAllowed: () => false, configFile: "/etc/engram/engram.yaml" };
  const unlisted = stdioServer({ name: "s", command: "deno" });
  const missing = (await evaluateLaunch(unlisted, facts)).checks.find((c) =>
    c.rule === "allow_run"
  )!;
  assert.equal(
    missing.detail,
    `command "deno" is not in mcp.stdio_allowed_commands or this server's stdio_allowed_commands, so engram did not keep Deno's permission to run it`,
  );
  assert.equal(
    missing.fix,
    `after reviewing it, add "deno" to mcp.stdio_allowed_commands in /etc/engram/engram.yaml, or to this server's stdio_allowed_commands`,
  );
  assert.ok(!missing.fix.includes("deno task compile"));
  // Listed, and still not runnable: only then is the binary's baked list the one to change.
  for (const listed of [{ ...unlisted, stdio_allowed_commands: ["deno"] }]) {
    const check = (await evaluateLaunch(listed, facts)).checks.find((c) => c.rule === "allow_run")!;
    assert.match(check.fix, /deno task compile --allow-run=\.\.\.,deno$/);
  }
  const global = (await evaluateLaunch(unlisted, { ...facts, allowedCommands: ["deno"] })).checks
    .find((c) => c.rule === "allow_run")!;
  assert.match(global.detail, /is not in this binary's allow-run list/);
});

Deno.test("cwd: resolved before every rule; the verdict's cwd is the real path the server runs in", async () => {
  await using dir = await scratchDir();
  await Deno.mkdir(`${dir.path}/home/projects/notes`, { recursive: true });
  await Deno.symlink(`${dir.path}/home/projects/notes`, `${dir.path}/home/notes-link`);
  const facts = await testFacts(`${dir.path}/data`, {
    reviewKeys: [signer.reviewKey],
    vars: { HOME: `${dir.path}/home` },
  });
  const server = await launchable(signer, {
    name: "s",
    command: "deno",
    cwd: "~/projects/../notes-link",
  });
  const verdict = await evaluateLaunch(server, facts);
  assert.equal(verdict.blocked, null);
  assert.equal(verdict.cwd, await Deno.realPath(`${dir.path}/home/projects/notes`));
  // A folder in the home folder is fine; the home folder itself is not.
  const home = await evaluateLaunch(
    await launchable(signer, { name: "s", command: "deno", cwd: "~/projects/.." }),
    facts,
  );
  assert.equal(home.blocked?.rule, "cwd");
  assert.match(home.blocked!.detail, /which is the home folder$/);
});

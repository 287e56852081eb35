import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { runEngram, tempDir } from "../helpers.ts";
import { VERSION } from "../../src/version.ts";
import {
  ANSI,
  assertFails,
  assertOk,
  exists,
  HAS_SCRIPT,
  runEngramOnTerminal,
  runJson,
  STACK_LINE,
  writeText,
} from "./_util.ts";

const COMMANDS = ["stdio", "serve", "remember", "search", "brains", "version"];

for (const flag of ["--help", "-h", "help"]) {
  Deno.test(`engram ${flag} prints the command list and exit codes on stdout and exits 0`, async () => {
    await using dir = await tempDir();
    const r = await runEngram([flag], { dataDir: dir.path });
    assertOk(r);
    assert.match(r.stdout, /^usage: engram COMMAND \[options\]$/m);
    for (const c of COMMANDS) assert.match(r.stdout, new RegExp(`^  ${c}\\b`, "m"), c);
    assert.match(r.stdout, /0 ok, 1 error, 2 usage/);
    assert.match(r.stdout, /75/);
    assert.ok(r.stdout.startsWith(`engram ${VERSION}`), r.stdout);
  });
}

Deno.test("engram with no command prints the usage and exits 2", async () => {
  await using dir = await tempDir();
  const r = await runEngram([], { dataDir: dir.path });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /usage: engram COMMAND/,
    "usage shown for an incomplete command line is an error: stderr",
  );
  assert.equal(r.stdout, "");
  assert.equal(await exists(`${dir.path}/engram.db`), false, "usage must not open the database");
});

Deno.test("engram version prints the version, MCP revision and Deno version", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["version"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(r.stdout, `engram ${VERSION} (MCP 2025-11-25, deno ${Deno.version.deno})\n`);
});

for (const flag of ["--version", "-V", "-v"]) {
  Deno.test(`engram ${flag} is the same as engram version`, async () => {
    await using dir = await tempDir();
    const a = await runEngram([flag], { dataDir: dir.path });
    const b = await runEngram(["version"], { dataDir: dir.path });
    assertOk(a);
    assert.equal(a.stdout, b.stdout);
  });
}

Deno.test("engram version --json prints engram, protocol, deno, sqlite and the config file", async () => {
  await using dir = await tempDir();
  const v = await runJson(["version", "--json"], { dataDir: dir.path });
  assert.deepEqual(v, {
    engram: VERSION,
    protocol: "2025-11-25",
    deno: Deno.version.deno,
    sqlite: "node:sqlite",
    config: { file: null, path: `${dir.path}/xdg-config/engram/engram.yaml`, rule: "none" },
  });
});

Deno.test("engram version takes no arguments", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["version", "extra"], { dataDir: dir.path });
  assertFails(r, 2, /unexpected argument "extra"[\s\S]*see: engram version --help/);
});

const HELP_CASES: [string[], string][] = [
  [["stdio", "--help"], "engram stdio"],
  [["config", "path", "--help"], "engram config path"],
  [["serve", "--help"], "engram serve"],
  [["remember", "--help"], "engram remember"],
  [["search", "--help"], "engram search"],
  [["brains", "--help"], "engram brains"],
  [["brains", "list", "--help"], "engram brains list"],
  [["brains", "create", "--help"], "engram brains create"],
  [["version", "--help"], "engram version"],
  [["search", "-h"], "engram search"],
];

for (const [args, usage] of HELP_CASES) {
  Deno.test(`engram ${args.join(" ")} prints usage and options and exits 0`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(args, { dataDir: dir.path });
    assertOk(r);
    assert.ok(r.stdout.includes(`usage: ${usage}`), r.stdout);
    assert.match(r.stdout, /^options:$/m);
    for (const opt of ["--help", "--config FILE", "--data DIR", "--log-level LEVEL"]) {
      assert.ok(r.stdout.includes(opt), `${args.join(" ")} help lacks ${opt}`);
    }
    assert.equal(await exists(`${dir.path}/engram.db`), false, "--help must not open the database");
  });
}

Deno.test("a command's --help lists its own options and marks repeatable ones", async () => {
  await using dir = await tempDir();
  const remember = await runEngram(["remember", "--help"], { dataDir: dir.path });
  for (const opt of ["--title T", "--path P", "--brain SLUG", "--json"]) {
    assert.ok(remember.stdout.includes(opt), `remember help lacks ${opt}`);
  }
  assert.match(remember.stdout, /--tag X\s+.*\(repeatable\)/);
  const search = await runEngram(["search", "--help"], { dataDir: dir.path });
  for (const opt of ["--top-k N", "--scope S", "--sort S", "--brain SLUG", "--json"]) {
    assert.ok(search.stdout.includes(opt), `search help lacks ${opt}`);
  }
});

Deno.test("--help wins over the command's arguments: nothing is read or stored", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember", "missing.md", "--help"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, /usage: engram remember/);
});

Deno.test("an unknown command exits 2 and points at engram --help", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["bogus"], { dataDir: dir.path });
  assertFails(r, 2, `unknown command "bogus"; see: engram --help`);
  const typo = await runEngram(["serach", "x"], { dataDir: dir.path });
  assertFails(typo, 2, `unknown command "serach"; did you mean "search"?; see: engram --help`);
});

const UNKNOWN_FLAG_CASES: [string[], string][] = [
  [["search", "x", "--bogus"], "search"],
  [["remember", "-", "--bogus"], "remember"],
  [["brains", "list", "--bogus"], "brains list"],
  [["brains", "create", "X", "--bogus"], "brains create"],
  [["version", "--bogus"], "version"],
  [["serve", "--bogus"], "serve"],
  [["stdio", "--bogus"], "stdio"],
];

for (const [args, cmd] of UNKNOWN_FLAG_CASES) {
  Deno.test(`engram ${args.join(" ")}: an unknown flag exits 2 with see: engram ${cmd} --help`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(args, { dataDir: dir.path, stdin: "" });
    assertFails(r, 2, `see: engram ${cmd} --help`);
    assert.match(r.stderr, /--bogus/);
    assert.match(r.stderr, new RegExp(`usage: engram ${cmd}`));
    assert.equal(await exists(`${dir.path}/engram.db`), false, "a usage error must not touch data");
  });
}

Deno.test("a string option given without its value is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", "x", "--top-k"], { dataDir: dir.path });
  assertFails(r, 2, /top-k[\s\S]*see: engram search --help/);
});

Deno.test("engram serve refuses --tier without --insecure-no-auth (tokens carry their tier)", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["serve", "--tier", "admin"], { dataDir: dir.path });
  assertFails(r, 2, "--tier only applies with --insecure-no-auth");
});

Deno.test("errors go to stderr with an engram: prefix and never carry a stack trace", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "bad.yaml", "server:\n  port: [\n");
  await writeText(dir.path, "not-a-dir", "x");
  const failing: string[][] = [
    ["bogus"],
    ["remember", "missing.md"],
    ["search", "x", "--top-k", "0"],
    ["brains", "create", "X", "--slug", "BAD"],
    ["brains", "list", "--config", "bad.yaml"],
    ["brains", "list", "--config", "absent.yaml"],
    ["brains", "list", "--data", `${dir.path}/not-a-dir/sub`],
    ["search", "x", "--brain", "nope"],
    ["serve", "--host", "0.0.0.0", "--insecure-no-auth"],
  ];
  for (const args of failing) {
    const r = await runEngram(args, { dataDir: dir.path });
    assert.notEqual(r.code, 0, args.join(" "));
    assert.equal(r.stdout, "", `${args.join(" ")}: stdout should be empty, got ${r.stdout}`);
    assert.match(r.stderr, /^engram: /, args.join(" "));
    assert.doesNotMatch(r.stderr, STACK_LINE, `${args.join(" ")}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\bat file:\/\/|Error: |Uncaught/, `${args.join(" ")}`);
  }
});

Deno.test("a data directory that cannot be created exits 1 naming it and suggesting --data", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "plain-file", "x");
  const r = await runEngram(["brains", "list", "--data", `${dir.path}/plain-file/sub`], {
    dataDir: dir.path,
  });
  assertFails(r, 1, `${dir.path}/plain-file/sub`);
  assert.match(r.stderr, /--data/);
});

Deno.test("a database locked by another process exits 75 (busy, retry later)", async () => {
  await using dir = await tempDir();
  assertOk(await runEngram(["brains", "list"], { dataDir: dir.path }));
  const db = new DatabaseSync(`${dir.path}/engram.db`);
  try {
    db.exec("BEGIN EXCLUSIVE");
    const r = await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "# Locked\n\nx\n" });
    assertFails(r, 75, /locked|busy/);
  } finally {
    db.exec("ROLLBACK");
    db.close();
  }
  // Once the lock is gone the same command works.
  assertOk(await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "# Locked\n\nx\n" }));
});

Deno.test("NO_COLOR=1 (the default here): piped output of every command has no ANSI escapes", async () => {
  await using dir = await tempDir();
  const runs: string[][] = [
    ["--help"],
    ["version"],
    ["brains", "list"],
    ["brains", "create", "Work Notes"],
    ["search", "work"],
    ["search", "--help"],
  ];
  assertOk(await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "# Work\n\nwork\n" }));
  for (const args of runs) {
    const r = await runEngram(args, { dataDir: dir.path });
    assert.equal(r.code, 0, args.join(" "));
    assert.doesNotMatch(r.stdout, ANSI, args.join(" "));
    assert.doesNotMatch(r.stderr, ANSI, args.join(" "));
  }
  const failed = await runEngram(["search", "x", "--bogus"], { dataDir: dir.path });
  assert.doesNotMatch(failed.stderr, ANSI);
});

Deno.test("without NO_COLOR, output piped to another program is still not coloured", async () => {
  await using dir = await tempDir();
  assertOk(await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "# Kites\n\nkites\n" }));
  const r = await runEngram(["search", "kites"], { dataDir: dir.path, env: { NO_COLOR: "" } });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /1\. Kites/);
  assert.doesNotMatch(r.stdout, ANSI);
});

Deno.test({
  name: "on a terminal, search results are coloured unless NO_COLOR is set",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using dir = await tempDir();
    assertOk(
      await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "# Kites\n\nkites\n" }),
    );
    const coloured = await runEngramOnTerminal(["search", "kites"], {
      dataDir: dir.path,
      env: { NO_COLOR: "" },
    });
    assert.equal(coloured.code, 0, coloured.stdout);
    assert.match(coloured.stdout, ANSI, "the terminal check itself must be able to see colour");
    const plain = await runEngramOnTerminal(["search", "kites"], {
      dataDir: dir.path,
      env: { NO_COLOR: "1" },
    });
    assert.equal(plain.code, 0, plain.stdout);
    assert.match(plain.stdout, /1\. Kites/);
    assert.doesNotMatch(plain.stdout, ANSI);
  },
});

/** parseArgs' own wording, which must never reach the user. */
const PARSEARGS_TEXT =
  /To specify a positional argument|argument missing|Unknown option '|is ambiguous/;

const OPTION_MISTAKES: [string[], string][] = [
  [["search", "x", "--foo"], "unknown option --foo for engram search; see: engram search --help"],
  [["search", "x", "-x"], "unknown option -x for engram search; see: engram search --help"],
  [
    ["search", "x", "--top", "3"],
    "unknown option --top for engram search (did you mean --top-k?); see: engram search --help",
  ],
  [
    ["search", "x", "--top-k"],
    "option --top-k for engram search needs a value (N); see: engram search --help",
  ],
  [
    ["search", "x", "--brain", "--json"],
    `option --brain for engram search needs a value (SLUG), got the option "--json"; write --brain=--json if that is the value; see: engram search --help`,
  ],
  [
    ["search", "x", "--json=yes"],
    `option --json for engram search takes no value, got "yes"; see: engram search --help`,
  ],
  [
    ["ask", "x", "--top-k"],
    "option --top-k for engram ask needs a value (N); see: engram ask --help",
  ],
];

for (const [args, message] of OPTION_MISTAKES) {
  Deno.test(`engram ${args.join(" ")}: engram's own usage message, not parseArgs' text`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(args, { dataDir: dir.path });
    assertFails(r, 2, `engram: ${message}\nusage: engram ${args[0]} `);
    assert.doesNotMatch(r.stderr, PARSEARGS_TEXT);
  });
}

Deno.test("engram mcp with no subcommand names the subcommands and where to get help", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["mcp"], { dataDir: dir.path });
  assertFails(
    r,
    2,
    "engram: missing subcommand; engram mcp has: servers, doctor, discover, call, read-resource, get-prompt, auth, approvals, exposure, compile-resource, score, marketplace, import, review, set, enable, disable, consent, remove, keys, sign, report; see: engram mcp --help",
  );
  assert.doesNotMatch(r.stderr, /missing argument/);
  assert.equal(await exists(`${dir.path}/engram.db`), false, "a usage error must not touch data");
});

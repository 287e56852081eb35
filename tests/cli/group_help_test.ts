/**
 * @module The help of every command group (`engram brains`, `tokens`, `config`, `mcp`, `mcp keys`)
 * on `--help`, `-h` and `help`, and the usage error (exit 2) for a word that is none of a group's
 * subcommands, with the nearest one suggested for a typo and none for an unrelated word.
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk } from "./_util.ts";

/** Every subcommand's usage line and every one of its own options, per group. */
const GROUPS: Record<string, { usages: string[]; options: string[] }> = {
  brains: {
    usages: [
      "engram brains list [--json]",
      "engram brains create NAME [--slug S]",
      "engram brains rename SLUG [--name N] [--slug S]",
      "engram brains delete SLUG [--force]",
    ],
    options: ["--json", "--slug S", "--visibility V", "--name N", "--force"],
  },
  tokens: {
    usages: [
      "engram tokens create --client NAME",
      "engram tokens list [--json]",
      "engram tokens revoke ID [--json]",
    ],
    options: ["--client NAME", "--tier T", "--brain SLUG", "--json"],
  },
  config: { usages: ["engram config path [--json]"], options: ["--json"] },
  mcp: {
    usages: ["engram mcp servers", "engram mcp keys generate", "engram mcp approvals"],
    options: ["--key FILE", "--all-pending"],
  },
  "mcp keys": {
    usages: [
      "engram mcp keys generate [--out DIR] [--json]",
      "engram mcp keys list [--json]",
      "engram mcp keys remove KEY",
    ],
    options: ["--out DIR", "--json"],
  },
};

for (const [group, want] of Object.entries(GROUPS)) {
  Deno.test(`${group} --help lists every subcommand with its options`, async () => {
    await using dir = await tempDir();
    const r = await runEngram([...group.split(" "), "--help"], { dataDir: dir.path });
    assertOk(r);
    for (const usage of want.usages) assert.ok(r.stdout.includes(usage), `${usage}\n${r.stdout}`);
    for (const option of want.options) {
      assert.match(r.stdout, new RegExp(`^ {4,}(-\\w, )?${option}\\s`, "m"), option);
    }
    // The options every command takes are listed once, and the per-command help is pointed to.
    assert.equal(r.stdout.split("--data DIR").length - 1, 1);
    assert.match(r.stdout, new RegExp(`see also: engram ${group} COMMAND --help`));
    assert.ok(!r.stdout.includes("undefined"));
  });
}

Deno.test("brains with no subcommand shows the same full help on stderr and exits 2", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains"], { dataDir: dir.path });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /--visibility V/);
  assert.match(r.stderr, /--force/);
});

Deno.test("engram --help lists get, list, forget and brains rename|delete", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["--help"], { dataDir: dir.path });
  assertOk(r);
  for (const line of [/^ {2}get PATH\|ID /m, /^ {2}list /m, /^ {2}forget PATH\|ID /m]) {
    assert.match(r.stdout, line);
  }
  assert.match(r.stdout, /brains list\|create\|rename\|delete/);
});

for (const group of Object.keys(GROUPS)) {
  Deno.test(`${group} -h and ${group} help print the same help as --help`, async () => {
    await using dir = await tempDir();
    const words = group.split(" ");
    const long = await runEngram([...words, "--help"], { dataDir: dir.path });
    for (const ask of ["-h", "help"]) {
      const r = await runEngram([...words, ask], { dataDir: dir.path });
      assertOk(r);
      assert.equal(r.stdout, long.stdout, ask);
    }
  });
}

/** A typo of a subcommand, per group: the command line, the typo, what it should suggest, and the
 * command whose --help the error points to. */
const TYPOS: { argv: string[]; typo: string; meant: string; help: string }[] = [
  { argv: ["brains", "lsit"], typo: "lsit", meant: "list", help: "brains" },
  { argv: ["tokens", "revok", "tok_1"], typo: "revok", meant: "revoke", help: "tokens" },
  { argv: ["config", "paht"], typo: "paht", meant: "path", help: "config" },
  { argv: ["mcp", "servrs"], typo: "servrs", meant: "servers", help: "mcp" },
  { argv: ["mcp", "aprovals"], typo: "aprovals", meant: "approvals", help: "mcp" },
  {
    argv: ["mcp", "keys", "genrate"],
    typo: "genrate",
    meant: "generate",
    help: "mcp keys generate",
  },
  {
    argv: ["mcp", "approvals", "aprove", "files", "read"],
    typo: "aprove",
    meant: "approve",
    help: "mcp approvals",
  },
  { argv: ["mcp", "approvals", "revok"], typo: "revok", meant: "revoke", help: "mcp approvals" },
  {
    argv: ["mcp", "marketplace", "shwo", "x"],
    typo: "shwo",
    meant: "show",
    help: "mcp marketplace",
  },
];

for (const { argv, typo, meant, help } of TYPOS) {
  Deno.test(`engram ${argv.join(" ")}: a usage error suggesting ${meant}`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(argv, { dataDir: dir.path });
    assertFails(r, 2, `command "${typo}"; did you mean "${meant}"?`);
    assert.ok(r.stderr.includes(`see: engram ${help} --help`), r.stderr);
  });
}

Deno.test("an unknown word far from every subcommand gets no suggestion", async () => {
  await using dir = await tempDir();
  for (const argv of [["brains", "zebra"], ["mcp", "zebra"], ["mcp", "keys", "zebra"]]) {
    const r = await runEngram(argv, { dataDir: dir.path });
    assertFails(r, 2, `command "zebra"`);
    assert.doesNotMatch(r.stderr, /did you mean/);
  }
});

Deno.test("mcp approvals WORD far from every verb is still taken as a server name", async () => {
  await using dir = await tempDir();
  // No verb is close to "zebra", so it is taken as a server name, as before.
  const r = await runEngram(["mcp", "approvals", "zebra"], { dataDir: dir.path });
  assertFails(r, 1, 'no upstream server named "zebra"');
  assert.doesNotMatch(r.stderr, /did you mean/);
});

import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertOk } from "./_util.ts";

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
};

for (const [group, want] of Object.entries(GROUPS)) {
  Deno.test(`${group} --help lists every subcommand with its options`, async () => {
    await using dir = await tempDir();
    const r = await runEngram([group, "--help"], { dataDir: dir.path });
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

import assert from "node:assert/strict";
import { TOKEN_PATTERN, type TokenGrant, TokenService } from "../../src/core/bearer_tokens.ts";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite_storage.ts";
import { type CliResult, runEngram, tempDir } from "../helpers.ts";
import {
  ANSI,
  assertFails,
  assertOk,
  exists,
  HAS_SCRIPT,
  runEngramOnTerminal,
  runJson,
  STACK_LINE,
} from "./_util.ts";

interface TokenJson {
  id: string;
  client_id: string;
  tier: string;
  brains: string[] | "*";
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Verifies a token in-process against the database the CLI wrote. */
async function verify(dataDir: string, token: string): Promise<TokenGrant | null> {
  const storage = openSqliteStorage(`${dataDir}/engram.db`);
  try {
    return await new TokenService(storage).verify(token);
  } finally {
    storage.close();
  }
}

/** A successful create: exit 0, the token alone on stdout, the one-time warning on stderr. */
function createdToken(r: CliResult): string {
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^egt_[A-Za-z0-9_-]{43}\n$/, "stdout is the token alone on one line");
  assert.match(r.stderr, /only time it is shown/);
  assert.doesNotMatch(r.stderr, STACK_LINE);
  return r.stdout.trim();
}

Deno.test("tokens create prints a token (only it, on stdout) that verify accepts", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "create", "--client", "alice", "--tier", "write"], {
    dataDir: dir.path,
  });
  const token = createdToken(r);
  assert.match(r.stderr, /created token tok_\w+ for client alice \(tier write, brains: all\)/);
  assert.ok(!r.stderr.includes(token), "the token is printed once, not also on stderr");
  const grant = await verify(dir.path, token);
  assert.ok(grant, "the printed token verifies");
  assert.equal(grant.clientId, "alice");
  assert.equal(grant.tier, "write");
  assert.equal(grant.brains, "*");
  assert.match(grant.tokenId, /^tok_/);
});

Deno.test("tokens create --brain restricts the token; --json prints { token, id, client_id, tier, brains, tools, operator }", async () => {
  await using dir = await tempDir();
  const work = await runJson<{ id: string }>(["brains", "create", "Work", "--json"], {
    dataDir: dir.path,
  });
  const out = await runJson<Record<string, unknown>>(
    ["tokens", "create", "--client", "ci", "--tier", "read", "--brain", "work", "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual(Object.keys(out), [
    "token",
    "id",
    "client_id",
    "tier",
    "brains",
    "tools",
    "operator",
  ]);
  assert.equal(out.operator, false);
  assert.match(out.token as string, TOKEN_PATTERN);
  assert.match(out.id as string, /^tok_/);
  assert.equal(out.client_id, "ci");
  assert.equal(out.tier, "read");
  assert.deepEqual(out.brains, ["work"], "the CLI shows slugs");
  const grant = await verify(dir.path, out.token as string);
  assert.deepEqual(grant?.brains, [work.id], "the grant holds brain ids");
  assert.equal(grant?.tokenId, out.id);
});

Deno.test("tokens create on a terminal shows the token once with the warning, on stdout", {
  ignore: !HAS_SCRIPT,
}, async () => {
  await using dir = await tempDir();
  const r = await runEngramOnTerminal(["tokens", "create", "--client", "tty", "--tier", "read"], {
    dataDir: dir.path,
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const tokens = r.stdout.match(/egt_[A-Za-z0-9_-]{43}/g) ?? [];
  assert.equal(tokens.length, 1, r.stdout);
  assert.match(r.stdout, /created token tok_\w+ for client tty/);
  assert.match(r.stdout, /only time it is shown/);
  assert.doesNotMatch(r.stdout, ANSI, "NO_COLOR is set");
  assert.ok(await verify(dir.path, tokens[0]));
});

Deno.test("tokens list shows every token without the token or its hash; --json is { items }", async () => {
  await using dir = await tempDir();
  const a = createdToken(
    await runEngram(["tokens", "create", "--client", "alice", "--tier", "admin"], {
      dataDir: dir.path,
    }),
  );
  const b = createdToken(
    await runEngram(
      ["tokens", "create", "--client", "bob", "--tier", "read", "--brain", "default"],
      {
        dataDir: dir.path,
      },
    ),
  );
  const r = await runEngram(["tokens", "list"], { dataDir: dir.path });
  assertOk(r);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 3, r.stdout);
  assert.match(
    lines[0],
    /^ID\s+CLIENT\s+TIER\s+BRAINS\s+TOOLS\s+TOKEN\s+CREATED\s+LAST USED\s+EXPIRES\s+REVOKED\s+OAUTH CLIENT$/,
  );
  assert.match(
    lines[1],
    /^tok_\w+\s+alice\s+admin\s+\*\s+\*\s+egt_\S{8}…\s+\d{4}-\d\d-\d\d \S+Z\s+-\s+-\s+-\s+-$/,
  );
  assert.match(lines[2], /^tok_\w+\s+bob\s+read\s+default\s+/);
  assert.ok(lines[1].includes(`egt_${a.slice(4, 12)}…`), "the display prefix identifies the token");

  const json = await runEngram(["tokens", "list", "--json"], { dataDir: dir.path });
  assertOk(json);
  const { items } = JSON.parse(json.stdout) as { items: TokenJson[] };
  assert.deepEqual(items.map((t) => [t.client_id, t.tier, t.brains]), [
    ["alice", "admin", "*"],
    ["bob", "read", ["default"]],
  ]);
  for (const out of [r.stdout, json.stdout]) {
    for (const t of [a, b]) {
      assert.ok(!out.includes(t.slice(4)), "list must never show a token");
      assert.ok(!out.includes(t.slice(12)), "list shows more than the display prefix");
    }
    assert.doesNotMatch(out, /[0-9a-f]{64}/, "list must never show a hash");
  }
});

Deno.test("tokens list with no tokens says how to create one", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "list"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, /no tokens; create one with: engram tokens create/);
  assert.deepEqual(await runJson(["tokens", "list", "--json"], { dataDir: dir.path }), {
    items: [],
  });
});

Deno.test("tokens revoke stops the token; list shows when; revoking again exits 1 (conflict)", async () => {
  await using dir = await tempDir();
  const created = await runJson<{ token: string; id: string }>(
    ["tokens", "create", "--client", "ci", "--tier", "write", "--json"],
    { dataDir: dir.path },
  );
  assert.ok(await verify(dir.path, created.token));
  const r = await runEngram(["tokens", "revoke", created.id], { dataDir: dir.path });
  assertOk(r);
  assert.equal(r.stdout, `revoked token ${created.id} (client ci)\n`);
  assert.equal(await verify(dir.path, created.token), null, "a revoked token no longer verifies");
  const { items } = await runJson<{ items: TokenJson[] }>(["tokens", "list", "--json"], {
    dataDir: dir.path,
  });
  const revokedAt = items[0].revoked_at;
  assert.ok(revokedAt && !Number.isNaN(Date.parse(revokedAt)), JSON.stringify(items));
  const again = await runEngram(["tokens", "revoke", created.id], { dataDir: dir.path });
  assertFails(again, 1, `conflict: token ${created.id} was already revoked at ${revokedAt}`);
});

Deno.test("tokens revoke --json prints the revoked record", async () => {
  await using dir = await tempDir();
  const created = await runJson<{ id: string }>(
    ["tokens", "create", "--client", "ci", "--tier", "read", "--brain", "default", "--json"],
    { dataDir: dir.path },
  );
  const out = await runJson<TokenJson>(["tokens", "revoke", created.id, "--json"], {
    dataDir: dir.path,
  });
  assert.equal(out.id, created.id);
  assert.deepEqual(out.brains, ["default"]);
  assert.ok(out.revoked_at);
});

Deno.test("tokens revoke of an unknown id exits 1 naming it", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "revoke", "tok_NOPE"], { dataDir: dir.path });
  assertFails(r, 1, `not_found: token "tok_NOPE" not found; list tokens with: engram tokens list`);
});

Deno.test("tokens create --tier owner exits 2 naming the tier and the choices, creating nothing", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "create", "--client", "ci", "--tier", "owner"], {
    dataDir: dir.path,
  });
  assertFails(r, 2, /tier/);
  assert.match(r.stderr, /read/);
  assert.match(r.stderr, /admin/);
  assert.equal(await exists(`${dir.path}/engram.db`), false, "invalid input opens no database");
});

Deno.test("tokens create --operator --tier admin: the grant carries it; list shows admin+operator", async () => {
  await using dir = await tempDir();
  const r = await runEngram(
    ["tokens", "create", "--client", "me", "--tier", "admin", "--operator"],
    { dataDir: dir.path },
  );
  const token = createdToken(r);
  assert.match(
    r.stderr,
    /created token tok_\w+ for client me \(tier admin, operator, brains: all\)/,
  );
  assert.equal((await verify(dir.path, token))?.operator, true);
  createdToken(
    await runEngram(["tokens", "create", "--client", "agent", "--tier", "admin"], {
      dataDir: dir.path,
    }),
  );
  const list = await runEngram(["tokens", "list"], { dataDir: dir.path });
  assertOk(list);
  const lines = list.stdout.trimEnd().split("\n");
  assert.match(lines[1], /^tok_\w+\s+me\s+admin\+operator\s+\*\s+/);
  assert.match(lines[2], /^tok_\w+\s+agent\s+admin\s+\*\s+/);
  const { items } = await runJson<{ items: { client_id: string; operator: boolean }[] }>(
    ["tokens", "list", "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual(items.map((t) => [t.client_id, t.operator]), [["me", true], ["agent", false]]);
});

Deno.test("tokens create --operator below admin exits 2 naming --tier admin, opening no database", async () => {
  await using dir = await tempDir();
  const r = await runEngram(
    ["tokens", "create", "--client", "ci", "--tier", "write", "--operator"],
    { dataDir: dir.path },
  );
  assertFails(r, 2, "--operator needs --tier admin (this token would be tier write)");
  assert.match(r.stderr, /add --tier admin or leave out --operator/);
  assert.equal(await exists(`${dir.path}/engram.db`), false, "invalid input opens no database");
});

Deno.test("tokens create with a bad client name exits 2 quoting the rule", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens", "create", "--client", "has space", "--tier", "read"], {
    dataDir: dir.path,
  });
  assertFails(r, 2, "^[A-Za-z0-9._@-]+$");
});

Deno.test("tokens create with an unknown brain exits 1 naming it; no token is created", async () => {
  await using dir = await tempDir();
  const r = await runEngram(
    [
      "tokens",
      "create",
      "--client",
      "ci",
      "--tier",
      "read",
      "--brain",
      "default",
      "--brain",
      "nope",
    ],
    { dataDir: dir.path },
  );
  assertFails(r, 1, `brain "nope" not found; list brains with: engram brains list`);
  assert.deepEqual(await runJson(["tokens", "list", "--json"], { dataDir: dir.path }), {
    items: [],
  });
});

const MISSING: [string, string[]][] = [["client", ["--tier", "read"]], ["tier", [
  "--client",
  "ci",
]]];
for (const [missing, args] of MISSING) {
  Deno.test(`tokens create without --${missing} exits 2 with the usage`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(["tokens", "create", ...args], { dataDir: dir.path });
    assertFails(r, 2, `missing --${missing}`);
    assert.match(r.stderr, /usage: engram tokens create --client NAME --tier/);
    assert.match(r.stderr, /see: engram tokens create --help/);
  });
}

Deno.test("tokens with no subcommand prints the tokens usage and exits 2; bogus exits 2", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["tokens"], { dataDir: dir.path });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /usage: engram tokens \(create .* \| list \| revoke ID \| pair --tier T .* \| clients \[remove CLIENT_ID\]\)/,
  );
  const bogus = await runEngram(["tokens", "bogus"], { dataDir: dir.path });
  assertFails(bogus, 2, `unknown tokens command "bogus"`);
  const extra = await runEngram(["tokens", "revoke"], { dataDir: dir.path });
  assertFails(extra, 2, /missing argument[\s\S]*see: engram tokens revoke --help/);
});

const HELPS: [string[], string][] = [
  [["tokens", "--help"], "usage: engram tokens (create"],
  [["tokens", "create", "--help"], "usage: engram tokens create --client NAME"],
  [["tokens", "list", "--help"], "usage: engram tokens list [--json]"],
  [["tokens", "revoke", "--help"], "usage: engram tokens revoke ID [--json]"],
];
for (const [args, usage] of HELPS) {
  Deno.test(`engram ${args.join(" ")} prints its usage and exits 0`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(args, { dataDir: dir.path });
    assertOk(r);
    assert.ok(r.stdout.includes(usage), r.stdout);
    assert.equal(await exists(`${dir.path}/engram.db`), false);
  });
}

Deno.test("engram --help lists the tokens command", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["--help"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, /^ {2}tokens\s+bearer tokens, pairing codes and OAuth clients/m);
});

import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, exists, runJson } from "./_util.ts";

interface Brain {
  id: string;
  slug: string;
  name: string;
  visibility: string;
  created_at: string;
  updated_at: string;
}

Deno.test("brains list on a first run creates the database and the default brain", async () => {
  await using dir = await tempDir();
  assert.equal(await exists(`${dir.path}/engram.db`), false);
  const { items } = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(await exists(`${dir.path}/engram.db`), true);
  assert.deepEqual(items.map((b) => b.slug), ["default"]);
  const [b] = items;
  assert.match(b.id, /^brn_/);
  assert.equal(b.visibility, "private");
  assert.ok(!Number.isNaN(Date.parse(b.created_at)));
  assert.ok(!Number.isNaN(Date.parse(b.updated_at)));
});

Deno.test("brains list --json is {items: [...]} and nothing else", async () => {
  await using dir = await tempDir();
  const out = await runJson(["brains", "list", "--json"], { dataDir: dir.path });
  assert.deepEqual(Object.keys(out), ["items"]);
});

Deno.test("brains list prints an aligned table with a header and one row per brain", async () => {
  await using dir = await tempDir();
  const created = await runJson<Brain>(["brains", "create", "Work Notes", "--json"], {
    dataDir: dir.path,
  });
  const r = await runEngram(["brains", "list"], { dataDir: dir.path });
  assertOk(r);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 3, r.stdout);
  assert.match(lines[0], /^SLUG\s+NAME\s+VISIBILITY\s+ID$/);
  const row = lines.find((l) => l.startsWith("work-notes "));
  assert.ok(row, r.stdout);
  assert.match(row, new RegExp(`^work-notes\\s+Work Notes\\s+private\\s+${created.id}$`));
  // Columns line up: every row has its ID column where the header's ID column starts.
  const idCol = lines[0].indexOf("ID");
  for (const line of lines.slice(1)) assert.match(line.slice(idCol), /^brn_/);
});

Deno.test("brains list runs twice without creating a second default brain", async () => {
  await using dir = await tempDir();
  await runJson(["brains", "list", "--json"], { dataDir: dir.path });
  const { items } = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(items.map((b) => b.slug), ["default"]);
});

Deno.test('brains create "Work Notes" derives the slug work-notes and is then listed', async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "create", "Work Notes"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, /^created brain work-notes \(Work Notes, private, id brn_\S+\)\n$/);
  const { items } = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], {
    dataDir: dir.path,
  });
  const work = items.find((b) => b.slug === "work-notes");
  assert.ok(work, JSON.stringify(items));
  assert.equal(work.name, "Work Notes");
});

Deno.test("brains create --json prints the new brain", async () => {
  await using dir = await tempDir();
  const b = await runJson<Brain>(["brains", "create", "Research", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(b.slug, "research");
  assert.equal(b.name, "Research");
  assert.equal(b.visibility, "private");
  assert.match(b.id, /^brn_/);
});

Deno.test("brains create --slug uses the given slug", async () => {
  await using dir = await tempDir();
  const b = await runJson<Brain>(["brains", "create", "Anything", "--slug", "team-2", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(b.slug, "team-2");
});

for (const bad of ["BAD", "-lead", "has space", "ünï", "a_b"]) {
  Deno.test(`brains create --slug ${JSON.stringify(bad)} exits 2 quoting the slug rule`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(["brains", "create", "X", `--slug=${bad}`], { dataDir: dir.path });
    assertFails(r, 2, "^[a-z0-9][a-z0-9-]*$");
    assert.match(r.stderr, /slug/);
  });
}

Deno.test("brains create --slug longer than 64 characters exits 2", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "create", "X", "--slug", "a".repeat(65)], {
    dataDir: dir.path,
  });
  assertFails(r, 2, /slug/);
});

Deno.test("brains create with a slug already taken exits 1 with a conflict", async () => {
  await using dir = await tempDir();
  assertOk(await runEngram(["brains", "create", "Work Notes"], { dataDir: dir.path }));
  const r = await runEngram(["brains", "create", "Work Notes"], { dataDir: dir.path });
  assertFails(r, 1, /conflict/);
  assert.match(r.stderr, /work-notes/);
});

Deno.test("brains create cannot take the slug of the default brain", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "create", "Other", "--slug", "default"], {
    dataDir: dir.path,
  });
  assertFails(r, 1, /conflict/);
});

Deno.test("brains create --visibility public stores the visibility", async () => {
  await using dir = await tempDir();
  const b = await runJson<Brain>(
    ["brains", "create", "Open", "--visibility", "public", "--json"],
    { dataDir: dir.path },
  );
  assert.equal(b.visibility, "public");
  const { items } = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(items.find((i) => i.slug === "open")?.visibility, "public");
});

Deno.test("brains create --visibility bogus exits 2 naming visibility", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "create", "Open", "--visibility", "bogus"], {
    dataDir: dir.path,
  });
  assertFails(r, 2, /visibility/);
});

Deno.test("brains create with a name that yields no slug exits 2 and asks for --slug", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "create", "!!!"], { dataDir: dir.path });
  assertFails(r, 2, `cannot derive a slug from name "!!!"`);
  assert.match(r.stderr, /pass a slug/);
});

Deno.test("brains create without NAME is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "create"], { dataDir: dir.path });
  assertFails(r, 2, /missing argument[\s\S]*see: engram brains create --help/);
});

Deno.test("brains with no subcommand prints the brains usage and exits 2", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains"], { dataDir: dir.path });
  assert.equal(r.code, 2);
  const all = r.stdout + r.stderr;
  assert.match(all, /usage: engram brains \(list \| create NAME \| rename SLUG \| delete SLUG\)/);
  assert.match(all, /\blist\b/);
  assert.match(all, /\bcreate NAME\b/);
});

Deno.test("brains bogus is a usage error (exit 2) naming the subcommand", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "bogus"], { dataDir: dir.path });
  assertFails(r, 2, `unknown brains command "bogus"`);
  assert.match(r.stderr, /see: engram brains --help/);
});

Deno.test("brains list with an extra argument is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "list", "extra"], { dataDir: dir.path });
  assertFails(r, 2, /unexpected argument "extra"/);
});

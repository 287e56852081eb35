import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, HAS_SCRIPT, runEngramOnTerminal, runJson } from "./_util.ts";

interface Brain {
  id: string;
  slug: string;
}

async function slugs(dataDir: string): Promise<string[]> {
  const { items } = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], { dataDir });
  return items.map((b) => b.slug);
}

/** A brain `work` with two documents, one of them forgotten. */
async function workBrain(dataDir: string): Promise<Brain> {
  const brain = await runJson<Brain>(["brains", "create", "Work", "--json"], { dataDir });
  for (const path of ["/a.md", "/b.md", "/gone.md"]) {
    assertOk(
      await runEngram(["remember", "-", "--brain", "work", "--path", path], {
        dataDir,
        stdin: `# ${path}\n\nworkword text`,
      }),
    );
  }
  assertOk(await runEngram(["forget", "/gone.md", "--brain", "work"], { dataDir }));
  return brain;
}

Deno.test("brains delete --force deletes the brain and its documents", async () => {
  await using dir = await tempDir();
  const brain = await workBrain(dir.path);
  const r = await runEngram(["brains", "delete", "work", "--force"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(r.stdout, `deleted brain work (id ${brain.id}) and its 3 documents\n`);
  assert.deepEqual(await slugs(dir.path), ["default"]);
  const search = await runEngram(["search", "workword", "--brain", "work"], { dataDir: dir.path });
  assertFails(search, 1, `no_brain: brain "work" not found`);
  // A new brain of the same slug starts empty.
  assertOk(await runEngram(["brains", "create", "Work"], { dataDir: dir.path }));
  const list = await runJson<{ items: unknown[] }>(["list", "--brain", "work", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(list.items, []);
});

Deno.test("brains delete without --force and without a terminal is a usage error naming --force", async () => {
  await using dir = await tempDir();
  await workBrain(dir.path);
  const r = await runEngram(["brains", "delete", "work"], { dataDir: dir.path, stdin: "work\n" });
  assertFails(r, 2, `deleting brain "work" is permanent and stdin is not a terminal`);
  assert.match(r.stderr, /pass --force/);
  assert.deepEqual(await slugs(dir.path), ["default", "work"]);
});

Deno.test("brains delete of an unknown slug is no_brain (exit 1)", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "delete", "nope", "--force"], { dataDir: dir.path });
  assertFails(r, 1, `no_brain: brain "nope" not found; list brains with: engram brains list`);
});

Deno.test("brains delete refuses the configured default brain, naming default_brain", async () => {
  await using dir = await tempDir();
  await workBrain(dir.path);
  const r = await runEngram(["brains", "delete", "work", "--force"], {
    dataDir: dir.path,
    env: { ENGRAM_DEFAULT_BRAIN: "work" },
  });
  assertFails(r, 1, `conflict: brain "work" is the configured default brain`);
  assert.match(r.stderr, /default_brain/);
  assert.match(r.stderr, /point default_brain at another brain first/);
  assert.deepEqual(await slugs(dir.path), ["default", "work"]);
});

Deno.test("brains delete default (no default_brain configured) is allowed; the next run starts a fresh default", async () => {
  await using dir = await tempDir();
  const before = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], {
    dataDir: dir.path,
  });
  assertOk(
    await runEngram(["remember", "-", "--path", "/x.md"], { dataDir: dir.path, stdin: "# X" }),
  );
  assertOk(await runEngram(["brains", "delete", "default", "--force"], { dataDir: dir.path }));
  const after = await runJson<{ items: Brain[] }>(["brains", "list", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(after.items.map((b) => b.slug), ["default"]);
  assert.notEqual(after.items[0].id, before.items[0].id);
  const list = await runJson<{ items: unknown[] }>(["list", "--json"], { dataDir: dir.path });
  assert.deepEqual(list.items, []);
});

Deno.test("brains delete revokes tokens scoped to the brain alone and narrows the others", async () => {
  await using dir = await tempDir();
  await workBrain(dir.path);
  const token = (client: string, ...brains: string[]) =>
    runJson<{ id: string }>([
      "tokens",
      "create",
      "--client",
      client,
      "--tier",
      "read",
      ...brains.flatMap((b) => ["--brain", b]),
      "--json",
    ], { dataDir: dir.path });
  const only = await token("only", "work");
  const both = await token("both", "work", "default");
  const all = await token("all");
  const out = await runJson<{
    brain: Brain;
    documents: number;
    revoked_tokens: string[];
    narrowed_tokens: string[];
  }>(["brains", "delete", "work", "--force", "--json"], { dataDir: dir.path });
  assert.equal(out.brain.slug, "work");
  assert.equal(out.documents, 3);
  assert.deepEqual(out.revoked_tokens, [only.id]);
  assert.deepEqual(out.narrowed_tokens, [both.id]);
  const { items } = await runJson<
    { items: { id: string; brains: string[] | "*"; revoked_at: string | null }[] }
  >(["tokens", "list", "--json"], { dataDir: dir.path });
  const byId = new Map(items.map((t) => [t.id, t]));
  assert.notEqual(byId.get(only.id)!.revoked_at, null);
  assert.deepEqual(byId.get(both.id)!.brains, ["default"]);
  assert.equal(byId.get(both.id)!.revoked_at, null);
  assert.equal(byId.get(all.id)!.brains, "*");
});

Deno.test("brains delete prints which tokens it revoked and narrowed", async () => {
  await using dir = await tempDir();
  await workBrain(dir.path);
  const only = await runJson<{ id: string }>(
    ["tokens", "create", "--client", "c", "--tier", "read", "--brain", "work", "--json"],
    { dataDir: dir.path },
  );
  const r = await runEngram(["brains", "delete", "work", "--force"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, new RegExp(`revoked tokens scoped to it alone: ${only.id}\\n`));
});

Deno.test({
  name: "brains delete on a terminal asks for the slug and deletes when it is typed",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using dir = await tempDir();
    await workBrain(dir.path);
    const r = await runEngramOnTerminal(["brains", "delete", "work"], {
      dataDir: dir.path,
      stdin: "work\n",
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /delete brain "work" and its 2 documents \(and 1 forgotten\) permanently\? type the slug to confirm:/,
    );
    assert.match(r.stdout, /deleted brain work/);
    assert.deepEqual(await slugs(dir.path), ["default"]);
  },
});

Deno.test({
  name: "brains delete on a terminal keeps the brain when something else is typed (exit 1)",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using dir = await tempDir();
    await workBrain(dir.path);
    const r = await runEngramOnTerminal(["brains", "delete", "work"], {
      dataDir: dir.path,
      stdin: "yes\n",
    });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /nothing deleted: the slug was not typed; brain "work" is unchanged/);
    assert.deepEqual(await slugs(dir.path), ["default", "work"]);
  },
});

Deno.test("brains delete --help describes the confirmation, --force and tokens", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "delete", "--help"], { dataDir: dir.path });
  assertOk(r);
  assert.match(r.stdout, /usage: engram brains delete SLUG \[--force\] \[--json\]/);
  assert.match(r.stdout, /--force/);
  assert.match(r.stdout, /revoked/);
});

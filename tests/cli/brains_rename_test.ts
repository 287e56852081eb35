import assert from "node:assert/strict";
import { mayAccess } from "../../src/core/brains.ts";
import { TokenService } from "../../src/core/bearer_tokens.ts";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite_storage.ts";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, runJson } from "./_util.ts";

interface Brain {
  id: string;
  slug: string;
  name: string;
}

Deno.test("brains rename --slug --name keeps the id and the documents", async () => {
  await using dir = await tempDir();
  const work = await runJson<Brain>(["brains", "create", "Work", "--json"], { dataDir: dir.path });
  assertOk(
    await runEngram(["remember", "-", "--brain", "work", "--path", "/a.md"], {
      dataDir: dir.path,
      stdin: "# A",
    }),
  );
  const r = await runEngram(["brains", "rename", "work", "--slug", "job", "--name", "Job"], {
    dataDir: dir.path,
  });
  assertOk(r);
  assert.equal(r.stdout, `renamed brain work (Work) to job (Job), id ${work.id}\n`);
  const list = await runJson<{ brain_id: string; items: { path: string }[] }>(
    ["list", "--brain", "job", "--json"],
    { dataDir: dir.path },
  );
  assert.equal(list.brain_id, work.id);
  assert.deepEqual(list.items.map((d) => d.path), ["/a.md"]);
  const old = await runEngram(["list", "--brain", "work"], { dataDir: dir.path });
  assertFails(old, 1, `no_brain: brain "work" not found`);
});

Deno.test("brains rename --name alone keeps the slug; --json prints the brain", async () => {
  await using dir = await tempDir();
  assertOk(await runEngram(["brains", "create", "Work"], { dataDir: dir.path }));
  const b = await runJson<Brain>(["brains", "rename", "work", "--name", "Day Job", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(b.slug, "work");
  assert.equal(b.name, "Day Job");
});

Deno.test("brains rename keeps a token scoped to the brain working (scopes hold ids)", async () => {
  await using dir = await tempDir();
  assertOk(await runEngram(["brains", "create", "Work"], { dataDir: dir.path }));
  const t = await runJson<{ id: string; token: string }>(
    ["tokens", "create", "--client", "c", "--tier", "read", "--brain", "work", "--json"],
    { dataDir: dir.path },
  );
  assertOk(await runEngram(["brains", "rename", "work", "--slug", "job"], { dataDir: dir.path }));
  const { items } = await runJson<{ items: { id: string; brains: string[] }[] }>(
    ["tokens", "list", "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual(items.find((i) => i.id === t.id)?.brains, ["job"]);
  // What the server checks on a request: the grant still reaches the renamed brain.
  const storage = openSqliteStorage(`${dir.path}/engram.db`);
  try {
    const grant = await new TokenService(storage).verify(t.token);
    assert.ok(grant);
    const job = (await storage.brains.findBrain("job"))!;
    const caller = {
      clientId: "c",
      transport: "http",
      tier: "read",
      brains: grant.brains,
    } as const;
    assert.equal(mayAccess(caller, job), true);
  } finally {
    storage.close();
  }
});

Deno.test("brains rename to a taken slug is a conflict (exit 1)", async () => {
  await using dir = await tempDir();
  assertOk(await runEngram(["brains", "create", "Work"], { dataDir: dir.path }));
  const r = await runEngram(["brains", "rename", "work", "--slug", "default"], {
    dataDir: dir.path,
  });
  assertFails(r, 1, `conflict: brain slug "default" is already taken; choose another --slug`);
});

Deno.test("brains rename validates the new slug like create (exit 2)", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "rename", "default", "--slug", "Bad Slug"], {
    dataDir: dir.path,
  });
  assertFails(r, 2, "^[a-z0-9][a-z0-9-]*$");
});

Deno.test("brains rename without --name or --slug is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "rename", "default"], { dataDir: dir.path });
  assertFails(r, 2, /give --name, --slug or both[\s\S]*see: engram brains rename --help/);
});

Deno.test("brains rename of an unknown slug is no_brain (exit 1)", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "rename", "nope", "--name", "X"], { dataDir: dir.path });
  assertFails(r, 1, `no_brain: brain "nope" not found`);
});

Deno.test("brains rename refuses a new slug for the brain default_brain names, pointing at its id", async () => {
  await using dir = await tempDir();
  const work = await runJson<Brain>(["brains", "create", "Work", "--json"], { dataDir: dir.path });
  const env = { ENGRAM_DEFAULT_BRAIN: "work" };
  const r = await runEngram(["brains", "rename", "work", "--slug", "job"], {
    dataDir: dir.path,
    env,
  });
  assertFails(r, 1, `brain "work" is the configured default brain`);
  assert.match(r.stderr, new RegExp(`set default_brain to its id ${work.id} first`));
  // A new name is fine, and so is a new slug once default_brain names the id.
  assertOk(
    await runEngram(["brains", "rename", "work", "--name", "W"], { dataDir: dir.path, env }),
  );
  assertOk(
    await runEngram(["brains", "rename", "work", "--slug", "job"], {
      dataDir: dir.path,
      env: { ENGRAM_DEFAULT_BRAIN: work.id },
    }),
  );
});

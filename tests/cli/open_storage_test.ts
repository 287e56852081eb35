/**
 * @module The composition root on PostgreSQL: `storage.backend: postgres` with `url:
 * "${DATABASE_URL}"` runs the real CLI against a throwaway cluster (a note remembered by one process
 * is found by the next), `engram doctor` checks it, and `engram backup` and `restore` refuse,
 * naming what to use instead.
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, writeText } from "./_util.ts";
import { startCluster } from "../storage/postgres/_cluster.ts";

const cluster = await startCluster();

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  /** A data dir whose config names PostgreSQL through ${DATABASE_URL}, and the env setting it. */
  const setup = async () => {
    const dir = await tempDir();
    const db = await cluster.createDatabase();
    await writeText(
      dir.path,
      "engram.yaml",
      'storage:\n  backend: postgres\n  url: "${DATABASE_URL}"\n  pool_size: 2\n',
    );
    const run = (args: string[], stdin?: string) =>
      runEngram(args, {
        dataDir: dir.path,
        env: { DATABASE_URL: db.url, ENGRAM_CONFIG: `${dir.path}/engram.yaml` },
        ...(stdin === undefined ? {} : { stdin }),
      });
    return {
      dir: dir.path,
      run,
      async [Symbol.asyncDispose]() {
        await db.drop();
        await dir[Symbol.asyncDispose]();
      },
    };
  };

  Deno.test("cli on postgres: remember in one process, search and doctor in the next", async () => {
    await using s = await setup();
    assertOk(
      await s.run(
        ["remember", "--path", "/notes/standup.md", "-"],
        "# Standup\nShip the importer on Friday.\n",
      ),
    );
    const found = await s.run(["search", "importer", "--json"]);
    assertOk(found);
    const hits = JSON.parse(found.stdout).hits as { path: string }[];
    assert.deepEqual(hits.map((h) => h.path), ["/notes/standup.md"]);
    const doctor = await s.run(["doctor", "--json"]);
    const report = JSON.stringify(JSON.parse(doctor.stdout));
    assert.match(report, /PostgreSQL, schema \d+; /);
    assert.match(report, /"derived:chunks"/);
    assert.doesNotMatch(report, /engram\.db/, "no SQLite file is looked at");
  });

  Deno.test("cli on postgres: backup and restore refuse, pointing to pg_dump and engram migrate", async () => {
    await using s = await setup();
    const backup = await s.run(["backup", `${s.dir}/copy.db`]);
    assertFails(
      backup,
      2,
      /engram backup works on the SQLite file, but storage\.backend is postgres/,
    );
    assert.match(backup.stderr, /pg_dump/);
    assert.match(backup.stderr, /engram migrate/);
    const restore = await s.run(["restore", `${s.dir}/copy.db`]);
    assertFails(
      restore,
      2,
      /engram restore works on the SQLite file, but storage\.backend is postgres/,
    );
    assert.match(restore.stderr, /pg_restore/);
  });

  Deno.test("cli on postgres: an unset DATABASE_URL is refused at start, naming the variable", async () => {
    await using dir = await tempDir();
    await writeText(
      dir.path,
      "engram.yaml",
      'storage:\n  backend: postgres\n  url: "${DATABASE_URL}"\n',
    );
    const r = await runEngram(["search", "x"], {
      dataDir: dir.path,
      env: { ENGRAM_CONFIG: `${dir.path}/engram.yaml` },
    });
    assertFails(
      r,
      2,
      /storage\.url: \$\{DATABASE_URL\} is not set in the environment; export DATABASE_URL/,
    );
  });
}

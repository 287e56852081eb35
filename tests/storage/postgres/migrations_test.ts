/**
 * @module PostgreSQL migrations: nodes starting together migrate once, a failed migration leaves
 * the schema as it was, and a node refuses a schema newer than it knows, naming both versions.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { EngramError } from "../../../src/core/errors.ts";
import { migrate, MIGRATIONS, schemaVersion } from "../../../src/storage/postgres/migrations.ts";
import { openPostgresStorage } from "../../../src/storage/postgres/postgres_storage.ts";
import { startCluster } from "./_cluster.ts";

const cluster = await startCluster();

/** A pool on `url` whose notices are dropped; ended on dispose. */
function pool(url: string): postgres.Sql & AsyncDisposable {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  return Object.assign(sql, { [Symbol.asyncDispose]: () => sql.end() });
}

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("postgres migrations: three nodes starting at once migrate an empty database once", async () => {
    const db = await cluster.createEmptyDatabase();
    try {
      const nodes = [1, 2, 3].map(() => pool(db.url));
      const results = await Promise.all(nodes.map((sql) => migrate(sql)));
      const known = MIGRATIONS.length;
      assert.deepEqual(results.map((r) => r.to), [known, known, known]);
      assert.equal(results.filter((r) => r.from === 0).length, 1, "exactly one node migrated");
      assert.deepEqual(results.filter((r) => r.from !== 0).map((r) => r.from), [known, known]);
      assert.equal(await schemaVersion(nodes[0]), known);
      const [{ rows }] = await nodes[0]`SELECT count(*)::int AS rows FROM engram_schema`;
      assert.equal(rows, 1);
      await Promise.all(nodes.map((sql) => sql.end()));
    } finally {
      await db.drop();
    }
  });

  Deno.test("postgres migrations: a migration that fails leaves the schema as it was", async () => {
    const db = await cluster.createEmptyDatabase();
    try {
      await using sql = pool(db.url);
      await migrate(sql, { migrations: MIGRATIONS.slice(0, 1) });
      const broken = [
        ...MIGRATIONS.slice(0, 1),
        { name: "half", sql: "CREATE TABLE half_done (x int); SELECT no_such_function();" },
      ];
      await assert.rejects(migrate(sql, { migrations: broken }), /no_such_function/);
      assert.equal(await schemaVersion(sql), 1);
      const [{ exists }] = await sql`SELECT to_regclass('half_done') IS NOT NULL AS exists`;
      assert.equal(exists, false, "the failed migration's own DDL was rolled back");
      assert.deepEqual(await migrate(sql), { from: 1, to: MIGRATIONS.length });
    } finally {
      await db.drop();
    }
  });

  Deno.test("postgres migrations: a node refuses a schema newer than it knows, naming both versions", async () => {
    const db = await cluster.createDatabase();
    try {
      {
        await using sql = pool(db.url);
        await sql`UPDATE engram_schema SET version = ${MIGRATIONS.length + 1}`;
      }
      let caught: unknown;
      try {
        await openPostgresStorage({ url: db.url });
      } catch (err) {
        caught = err;
      }
      assert.ok(caught instanceof EngramError, `expected an EngramError, got ${caught}`);
      assert.equal(caught.code, "internal");
      assert.match(
        caught.message,
        new RegExp(
          `schema is at version ${
            MIGRATIONS.length + 1
          }, newer than this engram knows \\(${MIGRATIONS.length}\\); upgrade this node`,
        ),
      );
    } finally {
      await db.drop();
    }
  });

  Deno.test("postgres migrations: a node running while another migrates past it turns not ready", async () => {
    const db = await cluster.createDatabase();
    try {
      const storage = await openPostgresStorage({ url: db.url });
      try {
        assert.equal(await storage.health.ready(), true);
        await storage.connection.pool`UPDATE engram_schema SET version = version + 1`;
        assert.equal(await storage.health.ready(), false);
        const [schema] = await storage.health.check({ level: "quick" });
        assert.equal(schema.name, "schema_version");
        assert.equal(schema.status, "damaged");
        assert.match(schema.problems[0], /this node knows/);
      } finally {
        await storage.close();
      }
    } finally {
      await db.drop();
    }
  });
}

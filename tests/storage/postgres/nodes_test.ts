/**
 * @module The PostgreSQL backend where it differs from SQLite: several nodes (storages) on one
 * database sharing jobs, documents, locks and tokens; work a unit of work left running in the
 * background; the statement timeout; an unreachable server; and the health checks finding what
 * engram keeps consistent broken.
 */
import assert from "node:assert/strict";
import { EngramError } from "../../../src/core/errors.ts";
import {
  openPostgresStorage,
  type PostgresStorage,
} from "../../../src/storage/postgres/postgres_storage.ts";
import { gate, MovableClock, newBrain, tokenOf, uid, writeDoc } from "../contracts/backend.ts";
import { type Cluster, startCluster } from "./_cluster.ts";

const cluster = await startCluster();

/** `n` storages (nodes) on one fresh database, on one clock; closed and dropped on dispose. */
async function nodes(n: number, clock = new MovableClock()) {
  const db = await (cluster as Cluster).createDatabase();
  const opened: PostgresStorage[] = [];
  for (let i = 0; i < n; i++) {
    opened.push(await openPostgresStorage({ url: db.url, now: clock.now }));
  }
  return {
    nodes: opened,
    clock,
    url: db.url,
    async [Symbol.asyncDispose]() {
      await Promise.all(opened.map((s) => s.close()));
      await db.drop();
    },
  };
}

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("postgres nodes: jobs claimed by two nodes at once are each claimed exactly once", async () => {
    await using two = await nodes(2);
    const [a, b] = two.nodes;
    const brain = await newBrain(a.brains, "default");
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(
        (await a.jobs.enqueueJob({
          id: uid("job"),
          kind: "embed",
          brain_id: brain.id,
          payload: { n: i },
        })).id,
      );
      two.clock.advance(1);
    }
    const claimAll = async (node: PostgresStorage) => {
      const mine: string[] = [];
      for (;;) {
        const job = await node.jobs.claimJob(60_000);
        if (job === null) return mine;
        mine.push(job.id);
      }
    };
    const [byA, byB] = await Promise.all([claimAll(a), claimAll(b)]);
    assert.deepEqual([...byA, ...byB].sort(), [...ids].sort(), "every job claimed, none twice");
    for (const id of ids) assert.equal((await b.jobs.getJob(id))?.attempts, 1);
  });

  Deno.test("postgres nodes: two nodes writing one document: one wins, the other is told it is stale", async () => {
    await using two = await nodes(2);
    const [a, b] = two.nodes;
    const brain = await newBrain(a.brains, "default");
    await writeDoc(a.documents, brain.id, "/shared.md", ["first"]);
    const current = (await a.documents.findDocument(brain.id, { path: "/shared.md" }))!;
    const write = (node: PostgresStorage, body: string) =>
      node.documents.writeVersion({
        document: { ...current, updated_at: two.clock.iso() },
        content: body,
        chunks: [],
        links: [],
        expectedVersion: current.version,
      });
    const results = await Promise.allSettled([write(a, "from a"), write(b, "from b")]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.ok(refused.reason instanceof EngramError);
    assert.equal(refused.reason.code, "conflict");
    assert.equal(refused.reason.cause, "stale-version");
    assert.equal((await b.documents.findDocument(brain.id, { path: "/shared.md" }))?.version, 2);
  });

  Deno.test("postgres nodes: a lock and a token change made through one node hold on the other at once", async () => {
    await using two = await nodes(2);
    const [a, b] = two.nodes;
    assert.equal(await a.locks.acquireLock("consolidate:x", "node-a", 60_000), null);
    assert.equal((await b.locks.acquireLock("consolidate:x", "node-b", 60_000))?.holder, "node-a");
    two.clock.advance(60_001);
    assert.equal(await b.locks.acquireLock("consolidate:x", "node-b", 60_000), null, "expired");
    const token = tokenOf();
    await a.tokens.insertToken(token);
    assert.equal((await b.tokens.findTokenByHash(token.token_hash))?.revoked_at, null);
    await b.tokens.revokeToken(token.id, two.clock.iso());
    assert.equal((await a.tokens.findTokenByHash(token.token_hash))?.revoked_at, two.clock.iso());
  });

  Deno.test("postgres units: work a unit started in the background runs outside it once it ended", async () => {
    await using one = await nodes(1);
    const [storage] = one.nodes;
    const ended = gate();
    let later: Promise<string> | undefined;
    await storage.units.withTransaction(async () => {
      await newBrain(storage.brains, "in-unit");
      // Carries the unit's async context, but runs after the unit committed.
      later = ended.promise.then(async () => (await newBrain(storage.brains, "after")).slug);
    });
    // A second unit, likely on the pooled connection the first one gave back, rolls back while
    // the background write runs: the write must not have gone into it.
    await assert.rejects(
      storage.units.withTransaction(async () => {
        await newBrain(storage.brains, "rolled-back");
        ended.open();
        await later;
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.equal(await later, "after");
    assert.deepEqual((await storage.brains.listBrains()).map((b) => b.slug), ["in-unit", "after"]);
  });

  Deno.test("postgres: a statement running past storage.statement_timeout_ms fails as busy, naming the setting", async () => {
    const db = await cluster.createDatabase();
    const storage = await openPostgresStorage({ url: db.url, statementTimeoutMs: 50 });
    try {
      let caught: unknown;
      try {
        await storage.connection.read((sql) => sql`SELECT pg_sleep(2)`);
      } catch (err) {
        caught = err;
      }
      assert.ok(caught instanceof EngramError, `expected an EngramError, got ${caught}`);
      assert.equal(caught.code, "busy");
      assert.match(caught.message, /storage\.statement_timeout_ms \(50 ms\)/);
      assert.equal(await storage.health.ready(), true, "the pool works on");
    } finally {
      await storage.close();
      await db.drop();
    }
  });

  Deno.test("postgres: an unreachable server is named (never its password) with the fix", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    let caught: unknown;
    try {
      await openPostgresStorage({ url: `postgres://engram:hunter2@127.0.0.1:${port}/engram` });
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof EngramError, `expected an EngramError, got ${caught}`);
    assert.equal(caught.code, "internal");
    assert.match(
      caught.message,
      new RegExp(`cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/engram`),
    );
    assert.match(caught.message, /check storage\.url/);
    assert.ok(!caught.message.includes("hunter2"));
    assert.equal(caught.remote, "the database cannot be reached; see the server log");
  });

  Deno.test("postgres health: a derived row of a forgotten document is damage: the check says so and ready turns false", async () => {
    await using one = await nodes(1);
    const [storage] = one.nodes;
    const brain = await newBrain(storage.brains, "default");
    const doc = await writeDoc(storage.documents, brain.id, "/gone.md", ["body"]);
    await storage.documents.markDeleted(brain.id, doc.id, one.clock.iso());
    const healthy = await storage.health.check({ level: "full" });
    assert.deepEqual(healthy.filter((c) => c.status !== "ok"), []);
    assert.deepEqual(healthy.map((c) => c.name), [
      "schema_version",
      "derived:chunks",
      "derived:links",
      "derived:document_tags",
      "versions",
    ]);
    await storage.connection.pool`CREATE EXTENSION amcheck`;
    const withAmcheck = await storage.health.check({ level: "full" });
    assert.deepEqual(withAmcheck.at(-1), { name: "amcheck", status: "ok", problems: [] });
    await storage.connection.pool`
      INSERT INTO document_tags (document_id, brain_id, tag) VALUES (${doc.id}, ${brain.id}, 'x')`;
    const quick = await storage.health.check({ level: "quick" });
    const damaged = quick.find((c) => c.status === "damaged");
    assert.equal(damaged?.name, "derived:document_tags");
    assert.deepEqual(damaged?.problems, [
      `a row of document_tags belongs to forgotten document ${doc.id}`,
    ]);
    assert.equal(await storage.health.ready(), false);
  });
}

import assert from "node:assert/strict";
import { newId } from "../../../src/core/ids.ts";
import { MemoryService } from "../../../src/core/memory_service.ts";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import type { Brain, CallerContext } from "../../../src/core/types.ts";
import type { SqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { openStore, otherBrain } from "./_store.ts";

const CALLER: CallerContext = { clientId: "test", transport: "cli", tier: "admin", brains: "*" };

/** Fills a brain with a row in every brain-scoped table: versions, chunks, FTS, vectors, tags,
 * links, sessions, messages, jobs, a lock; `word` is a term only this brain's content has. */
async function fill(storage: SqliteStorage, brain: Brain, word: string): Promise<string[]> {
  const service = new MemoryService(storage);
  const a = await service.remember(CALLER, {
    brain: brain.id,
    path: "/notes/a.md",
    content: `# A\n\n${word} links to [[B]].`,
    tags: ["t1", "t2"],
  });
  await service.remember(CALLER, {
    brain: brain.id,
    path: "/notes/a.md",
    content: `# A\n\n${word} again, links to [[B]].`,
  });
  const b = await service.remember(CALLER, {
    brain: brain.id,
    path: "/notes/b.md",
    content: `# B\n\n${word} [a](a.md)`,
  });
  const gone = await service.remember(CALLER, {
    brain: brain.id,
    path: "/notes/gone.md",
    content: `# Gone\n\n${word}`,
  });
  await service.forget(CALLER, { brain: brain.id, id: gone.id });
  const chunks = await storage.vectors.chunksOf(a.id);
  await storage.vectors.putVectors(
    "m",
    chunks.map((c) => ({ chunk_id: c.id, vector: new Float32Array([1]) })),
  );
  const session = newId("ses");
  await storage.sessions.createSession({
    id: session,
    brain_id: brain.id,
    client_id: "c",
    actor_id: null,
    started_at: new Date().toISOString(),
    ended_at: null,
    metadata: {},
  });
  await storage.sessions.appendMessages(session, [{
    id: newId("msg"),
    role: "user",
    content: word,
    metadata: {},
    created_at: new Date().toISOString(),
  }]);
  await storage.jobs.enqueueJob({ id: newId("job"), kind: "k", brain_id: brain.id, payload: {} });
  await storage.locks.acquireLock(`consolidate:${brain.id}`, "me", 60_000);
  return [a.id, b.id, gone.id];
}

function count(storage: SqliteStorage, sql: string, ...params: string[]): number {
  return (storage.connection.db.prepare(sql).get(...params) as { n: number }).n;
}

/** Rows left for a brain, per table: every table with a brain_id column, plus those keyed below it. */
function leftovers(
  storage: SqliteStorage,
  brainId: string,
  docIds: string[],
): Record<string, number> {
  const tables = (storage.connection.db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'",
  ).all() as { name: string }[]).map((t) => t.name);
  const out: Record<string, number> = {};
  for (const table of tables) {
    const columns =
      (storage.connection.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[])
        .map((c) => c.name);
    if (columns.includes("brain_id")) {
      out[table] = count(storage, `SELECT count(*) AS n FROM ${table} WHERE brain_id = ?`, brainId);
    }
  }
  const ids = JSON.stringify(docIds);
  out.document_versions = count(
    storage,
    "SELECT count(*) AS n FROM document_versions WHERE document_id IN (SELECT value FROM json_each(?))",
    ids,
  );
  out.messages = count(
    storage,
    "SELECT count(*) AS n FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)",
  );
  out.chunk_vectors = count(
    storage,
    "SELECT count(*) AS n FROM chunk_vectors WHERE chunk_rowid NOT IN (SELECT rowid FROM chunks)",
  );
  out.locks = count(storage, "SELECT count(*) AS n FROM locks WHERE instr(name, ?) > 0", brainId);
  return out;
}

Deno.test("deleteBrain leaves no row of the brain in any brain-scoped table, and the index is intact", async () => {
  await using s = await openStore();
  const keep = await otherBrain(s.storage, "keep");
  const docIds = await fill(s.storage, s.brain, "zanzibarword");
  await fill(s.storage, keep, "keepword");
  s.storage.connection.db.prepare(
    `INSERT INTO audit (at, client_id, transport, tier, kind, name, brain_id, args_digest, outcome, latency_ms)
     VALUES ('2025-01-01T00:00:00Z', 'c', 'cli', 'admin', 'tool', 'memory_get', ?, 'x', 'ok', 1)`,
  ).run(s.brain.id);
  const before = leftovers(s.storage, s.brain.id, docIds);
  for (const t of ["documents", "chunks", "document_tags", "links", "sessions", "jobs"]) {
    assert.ok(before[t] > 0, `the fixture should fill ${t}: ${JSON.stringify(before)}`);
  }
  const keepBefore = leftovers(s.storage, keep.id, []);

  const done = await s.storage.brains.deleteBrain(s.brain.id, { at: new Date().toISOString() });

  assert.equal(done.documents, 3, "forgotten documents are counted and deleted too");
  const after = leftovers(s.storage, s.brain.id, docIds);
  const { audit, ...rest } = after;
  assert.deepEqual(
    Object.entries(rest).filter(([, n]) => n !== 0),
    [],
    `rows left behind: ${JSON.stringify(after)}`,
  );
  assert.equal(audit, 1, "the audit log is kept: it records who did what, with no content");
  assert.equal(await s.storage.brains.findBrain(s.brain.id), null);
  assert.equal(await s.storage.brains.findBrain("default"), null);
  // FTS rows went with their chunks (both indexes), and the indexes are consistent.
  for (const fts of ["chunks_fts", "chunks_words"]) {
    assert.equal(
      count(s.storage, `SELECT count(*) AS n FROM ${fts} WHERE ${fts} MATCH 'zanzibarword'`),
      0,
    );
    assert.ok(
      count(s.storage, `SELECT count(*) AS n FROM ${fts} WHERE ${fts} MATCH 'keepword'`) > 0,
    );
    s.storage.connection.db.exec(`INSERT INTO ${fts} (${fts}) VALUES ('integrity-check')`);
  }
  // The other brain is untouched.
  const { audit: _, ...keepAfter } = leftovers(s.storage, keep.id, []);
  const { audit: __, ...keepExpected } = keepBefore;
  assert.deepEqual(keepAfter, keepExpected);
  assert.deepEqual(s.storage.connection.db.prepare("PRAGMA foreign_key_check").all(), []);
});

Deno.test("deleteBrain revokes tokens scoped to the brain alone and narrows the others", async () => {
  await using s = await openStore();
  const keep = await otherBrain(s.storage, "keep");
  const tokens = new TokenService(s.storage);
  const only = await tokens.create({ client: "only", tier: "read", brains: [s.brain.slug] });
  const both = await tokens.create({ client: "both", tier: "read", brains: ["default", "keep"] });
  const all = await tokens.create({ client: "all", tier: "admin" });
  const other = await tokens.create({ client: "other", tier: "read", brains: ["keep"] });
  const wasRevoked = await tokens.create({ client: "old", tier: "read", brains: ["default"] });
  await tokens.revoke(wasRevoked.record.id);

  const done = await s.storage.brains.deleteBrain(s.brain.id, { at: "2030-01-01T00:00:00.000Z" });

  assert.deepEqual(done.revokedTokens, [only.record.id]);
  assert.deepEqual(done.narrowedTokens, [both.record.id]);
  assert.equal(await tokens.verify(only.token), null, "a token for the deleted brain alone stops");
  const narrowed = await tokens.verify(both.token);
  assert.deepEqual(narrowed?.brains, [keep.id], "never widened to all brains");
  assert.equal((await tokens.verify(all.token))?.brains, "*");
  assert.deepEqual((await tokens.verify(other.token))?.brains, [keep.id]);
  const listed = await tokens.list();
  const revoked = listed.find((t) => t.id === only.record.id)!;
  assert.equal(revoked.revoked_at, "2030-01-01T00:00:00.000Z");
  assert.deepEqual(revoked.brains, [s.brain.id], "its scope still names only the dead brain");
  assert.notEqual(
    listed.find((t) => t.id === wasRevoked.record.id)!.revoked_at,
    "2030-01-01T00:00:00.000Z",
  );
});

Deno.test("renameBrain changes name and slug, keeps the id, and refuses a taken slug", async () => {
  await using s = await openStore();
  await otherBrain(s.storage, "taken");
  const tokens = new TokenService(s.storage);
  const t = await tokens.create({ client: "c", tier: "read", brains: ["default"] });
  const renamed = await s.storage.brains.renameBrain(s.brain.id, { slug: "work", name: "Work" });
  assert.equal(renamed.id, s.brain.id);
  assert.equal(renamed.slug, "work");
  assert.equal(renamed.name, "Work");
  assert.equal((await s.storage.brains.findBrain("work"))?.id, s.brain.id);
  assert.equal(await s.storage.brains.findBrain("default"), null);
  assert.deepEqual((await tokens.verify(t.token))?.brains, [s.brain.id]);
  const nameOnly = await s.storage.brains.renameBrain(s.brain.id, { name: "Job" });
  assert.equal(nameOnly.slug, "work");
  await assert.rejects(
    s.storage.brains.renameBrain(s.brain.id, { slug: "taken" }),
    (e: Error & { code?: string }) =>
      e.code === "conflict" && /"taken" is already taken/.test(e.message),
  );
});

import assert from "node:assert/strict";
import { call, callErr, callOk, connectStdio, tempDir } from "../helpers.ts";

Deno.test("stdio: a write-tier client remembers, searches, reads, updates and forgets a note", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const doc = await callOk<Record<string, unknown>>(s.client, "memory_remember", {
    content: "# Running plan\n\nTuesday intervals, Sunday long run.\n\n## Shoes\nPegasus 40.",
    tags: ["sport", "health"],
  });
  assert.equal(doc.title, "Running plan");
  assert.equal(doc.path, "/memory/global/running-plan.md");
  assert.equal(doc.version, 1);
  assert.deepEqual(doc.metadata, { tags: "sport,health" });
  assert.match(doc.checksum_sha256 as string, /^[0-9a-f]{64}$/);
  assert.match(doc.commit_sha as string, /^[0-9a-f]{7,64}$/);

  const found = await callOk<
    { hits: { path: string; chunk_id: string; highlights: string[] }[]; took_ms: number }
  >(
    s.client,
    "memory_search",
    { query: "pegasus" },
  );
  assert.equal(found.hits[0].path, "/memory/global/running-plan.md");
  assert.ok(found.hits[0].highlights.some((h) => h.includes("**Pegasus**")));

  const searchResult = await call(s.client, "memory_search", { query: "pegasus" });
  assert.match(
    (searchResult.content[0] as { text: string }).text,
    /^#1 score=\S+ \/memory\/global\/running-plan\.md\n/,
  );

  const got = await callOk<{ content: string }>(s.client, "memory_get", {
    path: "/memory/global/running-plan.md",
  });
  assert.match(got.content, /Pegasus 40/);

  const updated = await callOk<{ version: number }>(s.client, "memory_update", {
    id: doc.id,
    content: "# Running plan\n\nNew shoes: Novablast.",
  });
  assert.equal(updated.version, 2);
  const v1 = await callOk<{ content: string; version: number }>(s.client, "memory_get", {
    id: doc.id,
    version: 1,
  });
  assert.match(v1.content, /Pegasus/);

  const forgotten = await callOk<{ deleted_at: string | null }>(s.client, "memory_forget", {
    id: doc.id,
  });
  assert.ok(forgotten.deleted_at);
  const after = await callOk<{ hits: unknown[] }>(s.client, "memory_search", {
    query: "novablast",
  });
  assert.equal(after.hits.length, 0);
  const gone = await callErr(s.client, "memory_get", { id: doc.id });
  assert.equal(gone.code, "not_found");
});

Deno.test("stdio: the default read tier lists only read tools and refuses writes with forbidden", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path);
  const { tools } = await s.client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, [
    "memory_ask",
    "memory_backlinks",
    "memory_decisions",
    "memory_get",
    "memory_job",
    "memory_list_brains",
    "memory_meeting_extract",
    "memory_open_loops",
    "memory_pack",
    "memory_recall",
    "memory_search",
    "memory_stats",
    "memory_tags",
    "memory_timeline",
  ]);
  const err = await callErr(s.client, "memory_remember", { content: "x" });
  assert.equal(err.code, "forbidden");
  assert.match(err.text, /^forbidden: tool memory_remember needs tier write/);
  assert.equal(err.retryable, false);
});

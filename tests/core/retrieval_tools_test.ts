/**
 * @module The retrieval tool surface over a spawned `engram stdio` and the real SDK client (tools
 * listed first, so every result is checked against its outputSchema): memory_search's `group` and
 * `more_chunks`, memory_recall following it, memory_ask's `retrieved` keeping its thin shape, and
 * hostile query text never failing.
 */
import assert from "node:assert/strict";
import { callErr, callOk, connectStdio, tempDir } from "../helpers.ts";

interface Hit {
  path: string;
  chunk_id: string;
  document_id: string;
  more_chunks?: number;
}

const filler = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

/** A note of four overlapping 300-word windows that each hold "zebra", and two short ones. */
async function seed(client: Parameters<typeof callOk>[0]): Promise<void> {
  const long = [0, 1, 2].map((i) => `${filler(280, `p${i}x`)} zebra`).join("\n\n");
  await callOk(client, "memory_remember", { content: `# Long\n\n${long}`, path: "/long.md" });
  await callOk(client, "memory_remember", { content: "# S1\n\nzebra crossing", path: "/s1.md" });
  await callOk(client, "memory_remember", { content: "# S2\n\nzebra stripes", path: "/s2.md" });
}

Deno.test("tools: memory_search and memory_recall list group; hits may carry more_chunks", async () => {
  await using dir = await tempDir();
  await using c = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const { tools } = await c.client.listTools();
  for (const name of ["memory_search", "memory_recall"]) {
    const tool = tools.find((t) => t.name === name)!;
    const group = (tool.inputSchema.properties as Record<string, { enum?: string[] }>).group;
    assert.deepEqual(group.enum, ["document", "chunk"], name);
  }
  const search = tools.find((t) => t.name === "memory_search")!;
  assert.match(JSON.stringify(search.outputSchema), /more_chunks/);
});

Deno.test("tools: memory_search returns one hit per document unless group is chunk", async () => {
  await using dir = await tempDir();
  await using c = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await seed(c.client);
  const grouped = await callOk<{ hits: Hit[] }>(c.client, "memory_search", { query: "zebra" });
  assert.deepEqual(grouped.hits.map((h) => h.path).sort(), ["/long.md", "/s1.md", "/s2.md"]);
  assert.equal(grouped.hits.find((h) => h.path === "/long.md")!.more_chunks, 3);
  const chunks = await callOk<{ hits: Hit[] }>(c.client, "memory_search", {
    query: "zebra",
    group: "chunk",
  });
  assert.equal(chunks.hits.length, 6, "four windows of the long note, two short notes");
  assert.ok(chunks.hits.every((h) => h.more_chunks === undefined));
  const wrong = await callErr(c.client, "memory_search", { query: "zebra", group: "page" });
  assert.equal(wrong.code, "invalid_argument");
  assert.match(wrong.message, /group/);
});

Deno.test("tools: memory_recall follows group, with and without a session", async () => {
  await using dir = await tempDir();
  await using c = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await seed(c.client);
  const plain = await callOk<{ hits: Hit[] }>(c.client, "memory_recall", { query: "zebra" });
  assert.equal(plain.hits.length, 3);
  const chunks = await callOk<{ hits: Hit[] }>(c.client, "memory_recall", {
    query: "zebra",
    group: "chunk",
  });
  assert.equal(chunks.hits.length, 6);
  await callOk(c.client, "memory_extract", {
    session_id: "ride",
    messages: [{ role: "user", content: "We talked about zebra crossings and stripes." }],
  });
  const session = await callOk<{ chunks: Hit[] }>(c.client, "memory_recall", {
    query: "zebra",
    session_id: "ride",
  });
  assert.equal(new Set(session.chunks.map((h) => h.document_id)).size, session.chunks.length);
  assert.equal(session.chunks.find((h) => h.path === "/long.md")!.more_chunks, 3);
});

Deno.test("tools: memory_ask's retrieved passages keep their thin shape", async () => {
  await using dir = await tempDir();
  await using c = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await seed(c.client);
  const r = await callOk<{ retrieved: Record<string, unknown>[] }>(c.client, "memory_ask", {
    query: "What is a zebra crossing?",
  });
  assert.ok(r.retrieved.length > 0);
  for (const passage of r.retrieved) {
    assert.deepEqual(Object.keys(passage).sort(), ["chunk_id", "document_id", "preview", "score"]);
  }
});

Deno.test("tools: hostile query text is searched, never an error", async () => {
  await using dir = await tempDir();
  await using c = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await seed(c.client);
  const hostile = [
    '"',
    '"zebra',
    'a" OR "b',
    "NEAR(zebra stripes)",
    "NEAR(",
    "col:",
    "title:zebra",
    "^zebra",
    "^",
    "zebra*",
    "* ** ***",
    "AND OR NOT",
    "'; DROP TABLE chunks; --",
    "!@#$%^&*()_+-=[]{}|;':\",./<>?`~".repeat(140).slice(0, 4096),
    '"'.repeat(4096),
  ];
  for (const query of hostile) {
    for (const group of ["document", "chunk"]) {
      const r = await callOk<{ hits: Hit[] }>(c.client, "memory_search", { query, group });
      assert.ok(Array.isArray(r.hits), query.slice(0, 40));
    }
  }
  const r = await callOk<{ hits: Hit[] }>(c.client, "memory_search", { query: '"zebra' });
  assert.equal(r.hits.length, 3, "stray syntax around a word is no reason to miss it");
});

Deno.test("tools: memory_search fills top_k with documents even when a few hold many better chunks", async () => {
  await using dir = await tempDir();
  await using c = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await c.client.listTools();
  // Two notes of many chunks dense with "heron" outrank every chunk of four notes naming it once.
  for (let d = 0; d < 2; d++) {
    const dense = "heron glides. ".repeat(1200);
    await callOk(c.client, "memory_remember", {
      content: `# Dense ${d}\n\n${dense}`,
      path: `/d${d}.md`,
    });
  }
  for (let d = 0; d < 4; d++) {
    const sparse = `${filler(250, `s${d}x`)} heron`;
    await callOk(c.client, "memory_remember", {
      content: `# Sparse ${d}\n\n${sparse}`,
      path: `/s${d}.md`,
    });
  }
  const r = await callOk<{ hits: Hit[] }>(c.client, "memory_search", { query: "heron", top_k: 6 });
  // The first ask of the index (2 chunks per document wanted: 12) holds the dense notes alone.
  assert.deepEqual(
    r.hits.map((h) => h.path).sort(),
    ["/d0.md", "/d1.md", "/s0.md", "/s1.md", "/s2.md", "/s3.md"],
  );
});

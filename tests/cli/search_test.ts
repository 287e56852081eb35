import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, runJson } from "./_util.ts";

interface Hit {
  score: number;
  path: string;
  title: string;
  content: string;
  document_id: string;
  chunk_id: string;
  brain_id: string;
  highlights: string[];
}
interface SearchResult {
  query: string;
  brain_id: string;
  hits: Hit[];
  took_ms: number;
}

/** A data dir with two notes in the default brain. */
async function seeded() {
  const dir = await tempDir();
  const notes: [string, string][] = [
    [
      "/memory/global/running.md",
      "# Running plan\n\nTuesday intervals, Sunday long run. Weekly review.\n",
    ],
    [
      "/memory/project/parser.md",
      "# Parser\n\nThe tokenizer splits on whitespace. Weekly review.\n",
    ],
  ];
  for (const [path, content] of notes) {
    const r = await runEngram(["remember", "-", "--path", path], {
      dataDir: dir.path,
      stdin: content,
    });
    assertOk(r);
  }
  return dir;
}

Deno.test("search --json returns {query, brain_id, hits, took_ms} with the matching note", async () => {
  await using dir = await seeded();
  const result = await runJson<SearchResult>(["search", "intervals", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(Object.keys(result).sort(), ["brain_id", "hits", "query", "took_ms"]);
  assert.equal(result.query, "intervals");
  assert.match(result.brain_id, /^brn_/);
  assert.equal(typeof result.took_ms, "number");
  assert.ok(result.took_ms >= 0);
  assert.deepEqual(result.hits.map((h) => h.path), ["/memory/global/running.md"]);
  const hit = result.hits[0];
  assert.equal(hit.title, "Running plan");
  assert.match(hit.document_id, /^doc_/);
  assert.match(hit.chunk_id, /^chk_/);
  assert.equal(hit.brain_id, result.brain_id);
  assert.equal(typeof hit.score, "number");
  assert.ok(hit.highlights.some((h) => h.includes("**intervals**")), JSON.stringify(hit));
});

Deno.test("search --json with no match has an empty hits list and exits 0", async () => {
  await using dir = await seeded();
  const result = await runJson<SearchResult>(["search", "zeppelin", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(result.hits, []);
  assert.equal(result.query, "zeppelin");
});

Deno.test("search without --json lists each hit as a numbered title with its path and score", async () => {
  await using dir = await seeded();
  const r = await runEngram(["search", "tokenizer"], { dataDir: dir.path });
  assertOk(r);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^1\. Parser {2}\/memory\/project\/parser\.md {2}score \d+\.\d{2}$/);
  assert.match(lines[1], /^ {3}\S/);
  assert.ok(lines[1].includes("tokenizer") || lines[1].includes("Tokenizer"), lines[1]);
  assert.equal(lines.length, 2);
});

Deno.test("search without --json says so when nothing matches", async () => {
  await using dir = await seeded();
  const r = await runEngram(["search", "zeppelin"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(r.stdout, `no results for "zeppelin"\n`);
});

Deno.test("search --top-k 1 returns exactly one hit when more match", async () => {
  await using dir = await seeded();
  const all = await runJson<SearchResult>(["search", "weekly", "--json"], { dataDir: dir.path });
  const one = await runJson<SearchResult>(["search", "weekly", "--top-k", "1", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(all.hits.length, 2);
  assert.equal(one.hits.length, 1);
});

Deno.test("search --top-k accepts the bounds 1 and 100", async () => {
  await using dir = await seeded();
  for (const k of ["1", "100"]) {
    const r = await runEngram(["search", "parser", "--top-k", k, "--json"], {
      dataDir: dir.path,
    });
    assertOk(r);
  }
});

for (const bad of ["0", "101", "abc", "1.5", "-3"]) {
  Deno.test(`search --top-k ${bad} is a usage error (exit 2) naming top`, async () => {
    await using dir = await tempDir();
    const r = await runEngram(["search", "anything", `--top-k=${bad}`], { dataDir: dir.path });
    assertFails(r, 2, /--top-k/);
  });
}

Deno.test("search --scope bogus is a usage error (exit 2) naming scope", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", "anything", "--scope", "bogus"], { dataDir: dir.path });
  assertFails(r, 2, /^engram: invalid arguments for search: --scope: /);
});

Deno.test("search --scope project only returns notes under /memory/project/", async () => {
  await using dir = await seeded();
  const result = await runJson<SearchResult>(
    ["search", "weekly", "--scope", "project", "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual(result.hits.map((h) => h.path), ["/memory/project/parser.md"]);
});

Deno.test("search --sort bogus is a usage error (exit 2)", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", "anything", "--sort", "bogus"], { dataDir: dir.path });
  assertFails(r, 2, /sort/);
});

for (
  const query of [
    `"unbalanced ( AND * :`,
    "🧠🔥 emoji only",
    "NEAR(a b) OR -x ^y",
    "'; DROP TABLE documents; --",
    "*",
    ")",
  ]
) {
  Deno.test(`search treats the hostile query ${JSON.stringify(query)} as text and exits 0`, async () => {
    await using dir = await seeded();
    const result = await runJson<SearchResult>(["search", query, "--json"], {
      dataDir: dir.path,
    });
    assert.equal(result.query, query);
    assert.ok(Array.isArray(result.hits));
    // The database must still be intact afterwards.
    const again = await runJson<SearchResult>(["search", "intervals", "--json"], {
      dataDir: dir.path,
    });
    assert.equal(again.hits.length, 1);
  });
}

Deno.test("search finds words in a note that contains emoji", async () => {
  await using dir = await tempDir();
  assertOk(
    await runEngram(["remember", "-"], {
      dataDir: dir.path,
      stdin: "# Mood 🧠\n\nbrainstorm 🔥 ideas about kites\n",
    }),
  );
  const result = await runJson<SearchResult>(["search", "kites", "--json"], { dataDir: dir.path });
  assert.equal(result.hits.length, 1);
});

Deno.test("search --brain searches that brain only", async () => {
  await using dir = await seeded();
  const work = await runJson<{ id: string }>(["brains", "create", "Work", "--json"], {
    dataDir: dir.path,
  });
  assertOk(
    await runEngram(["remember", "-", "--brain", "work"], {
      dataDir: dir.path,
      stdin: "# Intervals at work\n\nquarterly intervals review\n",
    }),
  );
  const result = await runJson<SearchResult>(["search", "intervals", "--brain", "work", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(result.brain_id, work.id);
  assert.equal(result.hits.length, 1);
  assert.equal(result.hits[0].brain_id, work.id);
});

Deno.test("search --brain naming an unknown brain exits 1 with the hint", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", "x", "--brain", "nope"], { dataDir: dir.path });
  assertFails(r, 1, `brain "nope" not found; list brains with: engram brains list`);
});

Deno.test("search with no QUERY is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search"], { dataDir: dir.path });
  assertFails(r, 2, /missing argument[\s\S]*usage: engram search/);
});

Deno.test("search with an empty QUERY is a usage error naming query", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", ""], { dataDir: dir.path });
  assertFails(r, 2, /query/);
});

Deno.test("search with a query over 4096 characters is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", "a".repeat(4097)], { dataDir: dir.path });
  assertFails(r, 2, /query/);
});

Deno.test("search --top-k takes only plain integers: 1e2 and 0x10 are usage errors", async () => {
  await using dir = await tempDir();
  for (const bad of ["1e2", "0x10", "2.5"]) {
    const r = await runEngram(["search", "x", "--top-k", bad], { dataDir: dir.path });
    assert.equal(r.code, 2, bad);
    assert.match(
      r.stderr,
      new RegExp(`--top-k must be an integer, got "${bad.replace(".", "\\.")}"`),
    );
  }
});

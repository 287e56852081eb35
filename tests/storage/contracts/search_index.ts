/**
 * @module The SearchIndex contract: ranked full-text search over live chunks that no user text
 * can break, within a brain and scope. Re-chunking, backlinks and tags are in
 * search_index_derived.ts.
 */
import assert from "node:assert/strict";
import type { Scope } from "../../../src/core/limits.ts";
import type { SearchHit, SearchQuery } from "../../../src/core/types.ts";
import { type ContractBackend, newBrain, searchQuery, withBrain, writeDoc } from "./backend.ts";
import { indexDerivedCases } from "./search_index_derived.ts";
import { indexRankingCases } from "./search_index_ranking.ts";

const T = (day: number) => `2030-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;

const paths = (hits: SearchHit[]) => hits.map((h) => h.path);

/** Text that is syntax in one query language or another; none of it may fail a search. */
const HOSTILE = [
  '"',
  '"unbalanced kayak',
  'kayak"',
  '""',
  '" OR "',
  'a" OR "b',
  "NEAR(kayak paddle)",
  "NEAR(",
  "NEAR/2",
  "title:kayak",
  "col:",
  'body:"kayak"',
  "{title body}: kayak",
  "^kayak",
  "^",
  "*",
  "**",
  "kay*ak*",
  "-kayak",
  "+kayak",
  "kayak AND",
  "AND OR NOT",
  "NOT kayak",
  "(kayak",
  ")",
  "[x]",
  "kayak:*",
  "kayak & paddle | !lake <-> trip",
  "'; DROP TABLE chunks; --",
  "\\",
  "%_",
  "\u0000kayak\u0000",
  "😀 kayak 🛶",
  ".".repeat(4096),
  "!@#$%^&*()_+-=[]{}|;':\",./<>?`~".repeat(140).slice(0, 4096),
  '"'.repeat(4096),
  "kayak ".repeat(682),
];

/** Registers the SearchIndex cases for `backend`. */
export function searchIndexContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} SearchIndex: ${name}`, fn);

  test("search finds live chunks and returns complete hits", async () => {
    await using f = await withBrain(backend);
    const doc = await writeDoc(
      f.storage.documents,
      f.brain.id,
      "/notes/walnut.md",
      ["Bread needs flour.", "Toast the walnut halves first."],
      {
        title: "Walnut recipes",
        headings: ["Walnut recipes", "Bread"],
        metadata: { rating: 5, tags: "food" },
        at: T(3),
      },
    );
    const hits = await f.storage.search.search(searchQuery(f.brain.id, "walnut halves"));
    // Both chunks hold "walnut" (the title is indexed with each); the one holding both words first.
    assert.equal(hits.length, 2);
    const [hit] = hits;
    const chunks = await f.storage.vectors.chunksOf(doc.id);
    assert.equal(hit.chunk_id, chunks[1].id, "the hit names the chunk that matched");
    assert.equal(hit.content, "Toast the walnut halves first.");
    assert.equal(hit.document_id, doc.id);
    assert.equal(hit.path, "/notes/walnut.md");
    assert.equal(hit.title, "Walnut recipes");
    assert.equal(hit.brain_id, f.brain.id);
    assert.deepEqual(hit.metadata, { rating: 5, tags: "food" });
    assert.deepEqual(hit.heading_path, ["Walnut recipes", "Bread"]);
    assert.equal(hit.updated_at, T(3));
    assert.ok(Number.isFinite(hit.score), String(hit.score));
    assert.ok(Array.isArray(hit.highlights));
  });

  test("no user text causes a query error", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/k.md", ["kayak paddle lake trip"]);
    for (const text of HOSTILE) {
      for (const sort of ["relevance", "recency"] as const) {
        let hits: SearchHit[];
        try {
          hits = await f.storage.search.search(searchQuery(f.brain.id, text, { sort }));
        } catch (err) {
          throw new Error(`search for ${JSON.stringify(text.slice(0, 60))} failed: ${err}`);
        }
        assert.ok(Array.isArray(hits));
        for (const h of hits) assert.equal(h.path, "/k.md");
      }
    }
    // Stray syntax around a word is no reason to miss it.
    for (const text of ['kayak"', '"kayak"', "(kayak", "kayak)", "kayak!"]) {
      assert.deepEqual(paths(await f.storage.search.search(searchQuery(f.brain.id, text))), [
        "/k.md",
      ]);
    }
  });

  test("a query with no words or no match returns no hits", async () => {
    await using f = await withBrain(backend);
    assert.deepEqual(await f.storage.search.search(searchQuery(f.brain.id, "anything")), []);
    await writeDoc(f.storage.documents, f.brain.id, "/k.md", ["kayak"]);
    assert.deepEqual(await f.storage.search.search(searchQuery(f.brain.id, "?!")), []);
    assert.deepEqual(await f.storage.search.search(searchQuery(f.brain.id, "zzyzx")), []);
  });

  test("search stays within its brain and never returns forgotten or replaced text", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "other");
    const docs = f.storage.documents;
    const live = await writeDoc(docs, f.brain.id, "/live.md", ["mango"]);
    const dead = await writeDoc(docs, f.brain.id, "/dead.md", ["mango papaya"]);
    await writeDoc(docs, other.id, "/live.md", ["mango papaya guava"]);
    const changed = await writeDoc(docs, f.brain.id, "/changed.md", ["guava"]);
    await docs.markDeleted(f.brain.id, dead.id, T(2));
    await writeDoc(docs, f.brain.id, "/changed.md", ["lychee"]);
    const ids = async (text: string) =>
      (await f.storage.search.search(searchQuery(f.brain.id, text))).map((h) => h.document_id);
    assert.deepEqual(await ids("mango"), [live.id]);
    assert.deepEqual(await ids("papaya"), []);
    assert.deepEqual(await ids("guava"), [], "the old version's text is gone");
    assert.deepEqual(await ids("lychee"), [changed.id]);
    const foreign = await f.storage.search.search(searchQuery(other.id, "papaya"));
    assert.deepEqual(foreign.map((h) => h.brain_id), [other.id]);
  });

  test("search sees every committed change at once, and nothing of a rolled-back unit", async () => {
    await using f = await withBrain(backend);
    const docs = f.storage.documents;
    const find = async () => paths(await f.storage.search.search(searchQuery(f.brain.id, "heron")));
    assert.deepEqual(await find(), []);
    await writeDoc(docs, f.brain.id, "/a.md", ["the heron nests by the river"]);
    assert.deepEqual(await find(), ["/a.md"]);
    await f.storage.units.withTransaction(async () => {
      await writeDoc(docs, f.brain.id, "/b.md", ["another heron"]);
    });
    assert.deepEqual((await find()).sort(), ["/a.md", "/b.md"]);
    await assert.rejects(
      f.storage.units.withTransaction(async () => {
        await writeDoc(docs, f.brain.id, "/c.md", ["a third heron"]);
        assert.equal((await find()).length, 3, "the unit sees its own write");
        throw new Error("abandon");
      }),
      /abandon/,
    );
    assert.deepEqual((await find()).sort(), ["/a.md", "/b.md"]);
    await writeDoc(docs, f.brain.id, "/b.md", ["now about otters"]);
    assert.deepEqual(await find(), ["/a.md"]);
    const a = await docs.findDocument(f.brain.id, { path: "/a.md" });
    await docs.markDeleted(f.brain.id, a!.id, T(2));
    assert.deepEqual(await find(), []);
  });

  test("another brain's many better matches do not crowd a brain's own matches out", async () => {
    await using f = await withBrain(backend);
    const other = await newBrain(f.storage.brains, "crowd");
    for (let i = 0; i < 150; i++) {
      await writeDoc(f.storage.documents, other.id, `/c${i}.md`, [`quasar quasar quasar ${i}`], {
        title: "Quasar",
      });
    }
    const filler = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    await writeDoc(f.storage.documents, f.brain.id, "/mine1.md", [`${filler} quasar`]);
    await writeDoc(f.storage.documents, f.brain.id, "/mine2.md", [`quasar ${filler}`]);
    for (const sort of ["relevance", "relevance_then_recency", "recency"] as const) {
      const hits = await f.storage.search.search(
        searchQuery(f.brain.id, "quasar", { topK: 5, sort }),
      );
      assert.deepEqual(paths(hits).sort(), ["/mine1.md", "/mine2.md"], sort);
    }
  });

  test("changing a returned hit changes nothing the next search returns", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["the heron"], {
      metadata: { k: "v" },
    });
    const first = await f.storage.search.search(searchQuery(f.brain.id, "heron"));
    const pristine = structuredClone(first);
    const attempt = (fn: () => void) => {
      try {
        fn();
      } catch {
        // A frozen record refuses the change, which is as good.
      }
    };
    attempt(() => (first[0].score = -1));
    attempt(() => (first[0].metadata.k = "changed"));
    attempt(() => first[0].highlights.push("x"));
    attempt(() => first.pop());
    assert.deepEqual(await f.storage.search.search(searchQuery(f.brain.id, "heron")), pristine);
  });

  test("a scope keeps hits under its path prefix", async () => {
    await using f = await withBrain(backend);
    const at = [
      "/memory/global/a.md",
      "/memory/project/a.md",
      "/memory/agent/a.md",
      "/ingest/a.md",
      "/memory/globalish/a.md",
    ];
    for (const path of at) {
      await writeDoc(f.storage.documents, f.brain.id, path, [`shared marmalade ${path}`]);
    }
    const scoped = async (scope: Scope, sort: SearchQuery["sort"] = "relevance") =>
      paths(await f.storage.search.search(searchQuery(f.brain.id, "marmalade", { scope, sort })))
        .sort();
    for (const sort of ["relevance", "recency", "relevance_then_recency"] as const) {
      assert.deepEqual(await scoped("global", sort), ["/memory/global/a.md"]);
      assert.deepEqual(await scoped("project", sort), ["/memory/project/a.md"]);
      assert.deepEqual(await scoped("agent", sort), ["/memory/agent/a.md"]);
      assert.deepEqual(await scoped("all", sort), [...at].sort());
    }
  });

  test("topK bounds the number of hits", async () => {
    await using f = await withBrain(backend);
    for (let i = 0; i < 12; i++) {
      await writeDoc(f.storage.documents, f.brain.id, `/n${i}.md`, [`lantern ${i}`]);
    }
    for (const sort of ["relevance", "recency"] as const) {
      const n = async (topK: number) =>
        (await f.storage.search.search(searchQuery(f.brain.id, "lantern", { topK, sort }))).length;
      assert.equal(await n(1), 1);
      assert.equal(await n(5), 5);
      assert.equal(await n(100), 12);
    }
  });

  test("relevance ranks a note about the word above a passing mention; recency the newest first", async () => {
    await using f = await withBrain(backend);
    const filler = Array.from({ length: 60 }, (_, i) => `filler${i}`).join(" ");
    await writeDoc(
      f.storage.documents,
      f.brain.id,
      "/strong.md",
      ["Sourdough starter, sourdough loaf, sourdough crumb."],
      { title: "Sourdough", at: T(1) },
    );
    await writeDoc(f.storage.documents, f.brain.id, "/weak.md", [`${filler} sourdough`], {
      title: "Bakery visit",
      at: T(5),
    });
    await writeDoc(f.storage.documents, f.brain.id, "/misc.md", ["nothing"], { at: T(9) });
    const relevance = await f.storage.search.search(searchQuery(f.brain.id, "sourdough"));
    assert.deepEqual(paths(relevance), ["/strong.md", "/weak.md"]);
    assert.ok(relevance[0].score >= relevance[1].score);
    const recency = await f.storage.search.search(
      searchQuery(f.brain.id, "sourdough", { sort: "recency" }),
    );
    assert.deepEqual(paths(recency), ["/weak.md", "/strong.md"]);
  });

  indexDerivedCases(backend);
  indexRankingCases(backend);
}

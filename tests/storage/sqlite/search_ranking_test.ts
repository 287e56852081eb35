/**
 * @module Each ranking rule of memory search, on a small brain where the rule changes the order
 * (real SQLite, through MemoryService): coverage over BM25, function words, names in titles,
 * required quotes, one hit per document, bounded ranking, function words alone, and highlights of
 * returned hits.
 */
import assert from "node:assert/strict";
import type { MemoryService } from "../../../src/core/memory_service.ts";
import { RANK_CAP } from "../../../src/storage/sqlite/search/fts_candidates.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";
import { filler, find, paths } from "./_store.ts";

/** Notes holding none of the test's words, so that BM25's IDF means something. */
async function fillers(service: MemoryService): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await service.remember(ADMIN, {
      content: `# Filler ${i}\n\nnothing about it ${i}`,
      path: `/f${i}.md`,
    });
  }
}

Deno.test("ranking: a note holding more of the query's words beats one repeating a word", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await fillers(s.service);
  await s.service.remember(ADMIN, { content: "# Boats\n\nkayak kayak kayak", path: "/one.md" });
  await s.service.remember(ADMIN, {
    content: `# Trip\n\n${filler(250, "w")} kayak on the lake with a paddle`,
    path: "/all.md",
  });
  await s.service.remember(ADMIN, { content: "# Lake\n\nlake", path: "/lake.md" });
  const hits = await find(s.service, "kayak paddle lake");
  assert.deepEqual(paths(hits), ["/all.md", "/lake.md", "/one.md"]);
  // BM25 alone prefers the short notes holding one word each; coverage turns the order.
  for (const h of hits.slice(1)) {
    assert.ok(h.component_scores!.bm25 > hits[0].component_scores!.bm25, JSON.stringify(hits));
  }
  assert.equal(hits[0].component_scores!.coverage, 1);
});

Deno.test("ranking: a question's function words neither match nor rank", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Chat\n\nWhat did she do with the boat? She did what she could with it.",
    path: "/chatter.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Gear\n\nThe kayak is in the shed.",
    path: "/k.md",
  });
  assert.deepEqual(paths(await find(s.service, "What did she do with the kayak?")), ["/k.md"]);
});

Deno.test("ranking: a name in the question favours the note titled with it", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await fillers(s.service);
  await s.service.remember(ADMIN, {
    content: "# Melanie\n\nShe spends her Sundays outdoors and likes to paint landscapes there.",
    path: "/melanie.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Studio notes\n\nMelanie paint. Melanie paint.",
    path: "/notes.md",
  });
  const named = await find(s.service, "What did Melanie paint?");
  assert.deepEqual(paths(named), ["/melanie.md", "/notes.md"]);
  assert.equal(named[0].component_scores!.name, 2);
  // Written in lower case it is a plain word: the note repeating both words comes first.
  const plain = await find(s.service, "what did melanie paint");
  assert.deepEqual(paths(plain), ["/notes.md", "/melanie.md"]);
  assert.equal(plain[0].component_scores!.name, undefined);
});

Deno.test("ranking: quoted text is required; the other words only rank", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# A\n\nnew york bagels", path: "/a.md" });
  await s.service.remember(ADMIN, { content: "# B\n\nnew york pizza", path: "/b.md" });
  await s.service.remember(ADMIN, { content: "# C\n\npizza in york, new oven", path: "/c.md" });
  assert.deepEqual(paths(await find(s.service, '"new york" pizza')), ["/b.md", "/a.md"]);
  assert.deepEqual(paths(await find(s.service, '"to be"')), []);
});

Deno.test("ranking: one hit per document by default, with more_chunks; group chunk lists every chunk", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  // 843 words: four overlapping 300-word windows, each holding "zebra"; two short notes.
  const long = [0, 1, 2].map((i) => `${filler(280, `p${i}x`)} zebra`).join("\n\n");
  const doc = await s.service.remember(ADMIN, { content: `# Long\n\n${long}`, path: "/long.md" });
  await s.service.remember(ADMIN, { content: "# S1\n\nzebra crossing", path: "/s1.md" });
  await s.service.remember(ADMIN, { content: "# S2\n\nzebra stripes", path: "/s2.md" });
  assert.equal(await s.storage.search.chunkCount(doc.id), 4);
  const grouped = await find(s.service, "zebra");
  assert.deepEqual(paths(grouped).sort(), ["/long.md", "/s1.md", "/s2.md"]);
  const longHit = grouped.find((h) => h.path === "/long.md")!;
  assert.equal(longHit.more_chunks, 3);
  assert.equal(grouped.find((h) => h.path === "/s1.md")!.more_chunks, 0);
  const all = await find(s.service, "zebra", { group: "chunk" });
  assert.equal(all.filter((h) => h.path === "/long.md").length, 4);
  assert.equal(all.length, 6);
  assert.equal(all[0].more_chunks, undefined);
  // top_k counts documents when grouped.
  assert.equal((await find(s.service, "zebra", { top_k: 2 })).length, 2);
  assert.equal(new Set(paths(await find(s.service, "zebra", { top_k: 2 }))).size, 2);
});

Deno.test("ranking: past RANK_CAP matches, a rare word still finds its old note", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# First\n\ncommon okapi", path: "/old.md" });
  await s.service.remember(ADMIN, {
    content: "# Heavy\n\ncommon common common",
    path: "/heavy.md",
  });
  await s.storage.units.withTransaction(async () => {
    for (let i = 0; i < RANK_CAP + 50; i++) {
      await s.service.remember(ADMIN, { content: `# N${i}\n\ncommon ${i}`, path: `/n/${i}.md` });
    }
  });
  assert.equal((await find(s.service, "common okapi"))[0].path, "/old.md");
  const common = await find(s.service, "common");
  assert.equal(common.length, 10);
  assert.ok(!paths(common).includes("/old.md"), "only the newest matches of a common word rank");
  assert.ok(!paths(common).includes("/heavy.md"), "however often the old note repeats it");
  // A word that matches nothing is no rarer word to rank by: the common word is still bounded.
  assert.deepEqual(paths(await find(s.service, "common zyzzyva")), paths(common));
});

Deno.test("ranking: a prefix widened to many words ranks fewer of its newest matches", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# Old\n\nqa0 qa0 qa0 qa0", path: "/old.md" });
  await s.storage.units.withTransaction(async () => {
    for (let i = 0; i < 640; i++) {
      await s.service.remember(ADMIN, {
        content: `# N${i}\n\nqa${i % 16} ${filler(8, "f")}`,
        path: `/n/${i}.md`,
      });
    }
  });
  // One word: all 41 matches are ranked, and the note repeating it wins.
  assert.equal((await find(s.service, "qa0"))[0].path, "/old.md");
  // 16 words (16 phrases for BM25): only the newest RANK_CAP / 4 = 500 of 641 matches are ranked.
  assert.ok(!paths(await find(s.service, "qa*", { top_k: 50 })).includes("/old.md"));
});

Deno.test("ranking: a query of function words alone lists its newest matches, not BM25's", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await fillers(s.service);
  await s.service.remember(ADMIN, { content: "# A\n\nto the to the to the", path: "/old.md" });
  await s.service.remember(ADMIN, {
    content: `# B\n\n${filler(60, "w")} we walked to the harbour`,
    path: "/new.md",
  });
  // BM25 puts the short note repeating the phrase first; such words say nothing, recency does.
  assert.deepEqual(paths(await find(s.service, '"to the"')), ["/new.md", "/old.md"]);
  assert.deepEqual(paths(await find(s.service, "to the")), ["/new.md", "/old.md"]);
});

Deno.test("ranking: highlights mark the matches of the returned hit, the body cut around them", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: `# Café notes\n\n${filler(40, "a")} the Café serves crêpes ${filler(40, "b")}`,
  });
  const [hit] = await find(s.service, "cafe crepes");
  assert.equal(hit.highlights[0], "**Café** notes");
  const snippet = hit.highlights[1];
  assert.match(snippet, /^…a39 the \*\*Café\*\* serves \*\*crêpes\*\* b0 .* b18…$/);
  assert.equal(snippet.replace(/^…|…$/g, "").split(" ").length, 24);
});

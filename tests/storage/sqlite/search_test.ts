import assert from "node:assert/strict";
import { ADMIN, openService, tempDir } from "../../helpers.ts";
import { filler, find, paths } from "./_store.ts";

Deno.test("search: a title match outranks a body-only match, with positive scores", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Kayak trips\n\nPacking list for the lake weekend.",
    path: "/title.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Weekend\n\nWe might rent a kayak at the lake.",
    path: "/body.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Groceries\n\nBread, milk, lake trout.",
    path: "/other.md",
  });
  const hits = await find(s.service, "kayak");
  assert.deepEqual(paths(hits), ["/title.md", "/body.md"]);
  assert.ok(hits[1].score > 0, `body score ${hits[1].score}`);
  assert.ok(hits[0].score > hits[1].score, `${hits[0].score} > ${hits[1].score}`);
  for (const h of hits) {
    const c = h.component_scores;
    assert.ok(c, "component scores are reported");
    assert.equal(
      h.score.toFixed(4),
      (10 * c.coverage + c.bm25 + c.fields + (c.name ?? 0)).toFixed(4),
      "score = 10 × coverage + bm25 + fields (+ name)",
    );
  }
});

Deno.test("search: a heading match outranks a body-only match", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Hobbies\n\n## Origami\n\nFolding paper cranes.",
    path: "/heading.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Hobbies too\n\nSometimes origami, mostly chess.",
    path: "/body.md",
  });
  await s.service.remember(ADMIN, { content: "# Chores\n\nLaundry.", path: "/chores.md" });
  const hits = await find(s.service, "origami");
  assert.deepEqual(paths(hits), ["/heading.md", "/body.md"]);
  assert.ok(hits[0].score > hits[1].score);
  assert.deepEqual(hits[0].heading_path, ["Hobbies", "Origami"]);
});

Deno.test("search: a prefix query finds whole words whose stem is shorter than the prefix", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Log\n\nI was running every morning in the park.",
    path: "/log.md",
  });
  await s.service.remember(ADMIN, { content: "# Cafés\n\nCoffee in Paris.", path: "/cafe.md" });
  assert.deepEqual(paths(await find(s.service, "runn*")), ["/log.md"]);
  assert.deepEqual(paths(await find(s.service, "mornin*")), ["/log.md"]);
  assert.deepEqual(paths(await find(s.service, "RUNNI*")), ["/log.md"], "case-insensitive");
  assert.deepEqual(paths(await find(s.service, "caf*")), ["/cafe.md"]);
  assert.deepEqual(paths(await find(s.service, "café*")), ["/cafe.md"]);
  assert.deepEqual(paths(await find(s.service, "runn* park")), ["/log.md"]);
  assert.deepEqual(await find(s.service, "runx*"), []);
  const [hit] = await find(s.service, "runn*");
  assert.ok(hit.highlights.some((h) => h.includes("**running**")), hit.highlights.join(" | "));
});

Deno.test("search: a prefix finds only words that start with it, though the index holds stems", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  // The porter stem of "plis" is "pli": FTS5's own prefix query `plis*` finds "pliant".
  await s.service.remember(ADMIN, { content: "# Rules\n\nThe pliant rules.", path: "/pliant.md" });
  await s.service.remember(ADMIN, { content: "# Note\n\nA plisse skirt.", path: "/plisse.md" });
  assert.deepEqual(paths(await find(s.service, "plis*")), ["/plisse.md"]);
  assert.deepEqual(paths(await find(s.service, "pli*")).sort(), ["/pliant.md", "/plisse.md"]);
});

Deno.test("search: a prefix widens to its most frequent words, function words only when alone", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  // 20 rarely used words start with "zed" and one used in many notes; the widening keeps 16.
  for (let i = 0; i < 20; i++) {
    await s.service.remember(ADMIN, {
      content: `# R${i}\n\nzed${"abcdefghijklmnopqrst"[i]}x`,
      path: `/r${i}.md`,
    });
  }
  for (let i = 0; i < 3; i++) {
    await s.service.remember(ADMIN, { content: `# C${i}\n\nzedcommon`, path: `/c${i}.md` });
  }
  const hits = await find(s.service, "zed*", { top_k: 50 });
  assert.equal(hits.length, 3 + 15, "the frequent word and 15 of the rare ones");
  assert.ok(paths(hits).includes("/c0.md"));
  // "would" is a function word: `wou*` looks for "wound" unless only function words start so.
  await s.service.remember(ADMIN, { content: "# W\n\nIt would rain.", path: "/would.md" });
  await s.service.remember(ADMIN, { content: "# X\n\nA wound healed.", path: "/wound.md" });
  assert.deepEqual(paths(await find(s.service, "wou*")), ["/wound.md"]);
  assert.deepEqual(paths(await find(s.service, "woul*")), ["/would.md"]);
});

Deno.test("search: a mistyped word that matches nothing is read as the nearest word of the index", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Shelter\n\nThe fundraiser for the shelter after the tournament.",
    path: "/shelter.md",
  });
  await s.service.remember(ADMIN, { content: "# Fund\n\nA fund raiser.", path: "/fund.md" });
  const [hit] = await find(s.service, "funraiser");
  assert.equal(hit.path, "/shelter.md", "one letter left out");
  assert.ok(hit.highlights.some((h) => h.includes("**fundraiser**")), hit.highlights.join(" | "));
  assert.deepEqual(
    paths(await find(s.service, "tourmanent")),
    ["/shelter.md"],
    "two letters swapped",
  );
  assert.deepEqual(paths(await find(s.service, "sheltre fundriaser")), ["/shelter.md"]);
  // Not corrected: a quoted word, a short word, a typo in the first three letters, too many typos.
  assert.deepEqual(await find(s.service, '"funraiser"'), []);
  assert.deepEqual(await find(s.service, "fnd"), []);
  assert.deepEqual(await find(s.service, "fudnraiser"), []);
  assert.deepEqual(await find(s.service, "funrasr"), []);
  // A word the index holds is searched as typed, however near a more frequent one.
  assert.deepEqual(paths(await find(s.service, "raiser")), ["/fund.md"]);
});

Deno.test("search: a prefix no longer widens to words of forgotten or changed documents", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, { content: "# Swim\n\nswimming laps" });
  assert.equal((await find(s.service, "swimm*")).length, 1);
  await s.service.update(ADMIN, { id: doc.id, content: "# Swim\n\nlaps only" });
  assert.deepEqual(await find(s.service, "swimm*"), []);
  await s.service.forget(ADMIN, { id: doc.id });
  assert.deepEqual(await find(s.service, "lap*"), []);
  const count = s.storage.connection.db.prepare(
    "SELECT count(*) AS n FROM chunks_words_vocab WHERE term = 'laps'",
  ).get() as { n: number };
  assert.equal(count.n, 0, "the word list forgets words of deleted chunks");
});

Deno.test("search: stemming matches other forms of a word", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# A\n\nWe run every day.", path: "/run.md" });
  await s.service.remember(ADMIN, { content: "# B\n\nShe is running late.", path: "/ing.md" });
  await s.service.remember(ADMIN, { content: "# C\n\nNothing related.", path: "/c.md" });
  assert.deepEqual(paths(await find(s.service, "running")).sort(), ["/ing.md", "/run.md"]);
  assert.deepEqual(paths(await find(s.service, "run")).sort(), ["/ing.md", "/run.md"]);
  assert.deepEqual(paths(await find(s.service, "runs")).sort(), ["/ing.md", "/run.md"]);
});

Deno.test("search: a quoted phrase matches only the words in that order", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# P\n\nBest new york pizza.", path: "/phrase.md" });
  await s.service.remember(ADMIN, {
    content: "# Q\n\nYork is not new to pizza.",
    path: "/scattered.md",
  });
  assert.deepEqual(paths(await find(s.service, '"new york"')), ["/phrase.md"]);
  assert.deepEqual(paths(await find(s.service, '"new york" pizza')), ["/phrase.md"]);
  assert.deepEqual(paths(await find(s.service, "new york")).sort(), [
    "/phrase.md",
    "/scattered.md",
  ]);
  assert.deepEqual(await find(s.service, '"york new"'), []);
});

Deno.test("search: notes holding all the words come first, then those holding some", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# Both\n\nkayak and paddle", path: "/both.md" });
  await s.service.remember(ADMIN, { content: "# One\n\nkayak kayak kayak", path: "/one.md" });
  await s.service.remember(ADMIN, { content: "# None\n\nbicycle", path: "/none.md" });
  assert.deepEqual(paths(await find(s.service, "kayak paddle")), ["/both.md", "/one.md"]);
  // "zzyzx" is in no document: it only makes no note rank higher.
  assert.deepEqual(paths(await find(s.service, "kayak zzyzx")).sort(), ["/both.md", "/one.md"]);
  const question = await find(s.service, "where did I put my paddle for the kayak?");
  assert.equal(question[0].path, "/both.md", "the note with more shared words ranks first");
  assert.deepEqual(await find(s.service, "zzyzx qqq"), []);
});

Deno.test("search: sort by recency puts the newest match first, relevance the best match", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const strong = await s.service.remember(ADMIN, {
    content: "# Sourdough\n\nSourdough starter, sourdough loaf.",
    path: "/strong.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Bakery visit\n\nThey had sourdough.",
    path: "/weak.md",
  });
  await s.service.remember(ADMIN, { content: "# Misc\n\nnothing", path: "/misc.md" });
  // Make the strong match clearly older, independent of the clock.
  s.storage.connection.db.prepare("UPDATE documents SET updated_at = ? WHERE id = ?").run(
    "2020-01-01T00:00:00.000Z",
    strong.id,
  );
  assert.deepEqual(paths(await find(s.service, "sourdough")), ["/strong.md", "/weak.md"]);
  assert.deepEqual(paths(await find(s.service, "sourdough", { sort: "recency" })), [
    "/weak.md",
    "/strong.md",
  ]);
  const rr = await find(s.service, "sourdough", { sort: "relevance_then_recency" });
  assert.deepEqual(paths(rr), ["/strong.md", "/weak.md"], "a clearly better match still wins");
});

Deno.test("search: relevance_then_recency prefers the newer of two equal matches", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const older = await s.service.remember(ADMIN, { content: "# Note\n\nquince jam", path: "/1.md" });
  await s.service.remember(ADMIN, { content: "# Note\n\nquince jam", path: "/2.md" });
  await s.service.remember(ADMIN, { content: "# Other\n\nplum", path: "/3.md" });
  s.storage.connection.db.prepare("UPDATE documents SET updated_at = ? WHERE id = ?").run(
    "2099-01-01T00:00:00.000Z",
    older.id,
  );
  const hits = await find(s.service, "quince", { sort: "relevance_then_recency" });
  assert.equal(hits[0].score, hits[1].score);
  assert.deepEqual(paths(hits), ["/1.md", "/2.md"]);
});

Deno.test("search: top_k bounds the number of hits", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  for (let i = 0; i < 45; i++) {
    await s.service.remember(ADMIN, { content: `# N${i}\n\nlantern ${i}`, path: `/n${i}.md` });
  }
  assert.equal((await find(s.service, "lantern", { top_k: 1 })).length, 1);
  assert.equal((await find(s.service, "lantern", { top_k: 5 })).length, 5);
  assert.equal((await find(s.service, "lantern", { top_k: 10 })).length, 10);
  const all = await find(s.service, "lantern", { top_k: 100 });
  assert.equal(all.length, 45);
  assert.equal(new Set(all.map((h) => h.document_id)).size, 45);
  assert.equal((await find(s.service, "lantern", { top_k: 40, sort: "recency" })).length, 40);
});

Deno.test("search: forgotten documents and other brains never appear", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.createBrain({ name: "Elsewhere", visibility: "private" });
  const live = await s.service.remember(ADMIN, { content: "# Live\n\nmango", path: "/live.md" });
  const dead = await s.service.remember(ADMIN, { content: "# Dead\n\nmango papaya" });
  await s.service.remember(ADMIN, {
    content: "# Foreign\n\nmango papaya",
    path: "/live.md",
    brain: "elsewhere",
  });
  await s.service.forget(ADMIN, { id: dead.id });
  assert.deepEqual((await find(s.service, "mango")).map((h) => h.document_id), [live.id]);
  // The AND pass finds nothing here, so the OR pass runs; it must still exclude both.
  assert.deepEqual((await find(s.service, "mango papaya")).map((h) => h.document_id), [live.id]);
  assert.deepEqual(await find(s.service, "papaya"), []);
  const foreign = await find(s.service, "papaya", { brain: "elsewhere" });
  assert.equal(foreign.length, 1);
  assert.notEqual(foreign[0].brain_id, live.brain_id);
});

Deno.test("search: a hit carries its chunk, document, title, metadata and ** highlights", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Walnut recipes\n\n## Bread\n\nToast the walnut halves first.",
    tags: ["food"],
    metadata: { rating: 5 },
  });
  const r = await s.service.search(ADMIN, {
    query: "walnut",
    top_k: 10,
    scope: "all",
    sort: "relevance",
  });
  assert.equal(r.query, "walnut");
  assert.equal(r.brain_id, doc.brain_id);
  assert.ok(Number.isInteger(r.took_ms) && r.took_ms >= 0);
  const [hit] = r.hits;
  assert.match(hit.chunk_id, /^chk_[0-9A-Z]{26}$/);
  const chunk = s.storage.connection.db.prepare("SELECT document_id, body FROM chunks WHERE id = ?")
    .get(
      hit.chunk_id,
    ) as { document_id: string; body: string };
  assert.equal(chunk.document_id, doc.id);
  assert.equal(hit.content, chunk.body);
  assert.equal(hit.content, "Toast the walnut halves first.");
  assert.equal(hit.document_id, doc.id);
  assert.equal(hit.title, "Walnut recipes");
  assert.equal(hit.path, doc.path);
  assert.equal(hit.brain_id, doc.brain_id);
  assert.deepEqual(hit.metadata, { rating: 5, tags: "food" });
  assert.equal(hit.updated_at, doc.updated_at);
  assert.deepEqual(hit.highlights, ["**Walnut** recipes", "Toast the **walnut** halves first."]);
});

Deno.test("search: a word deep in a long note returns the window holding it", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: `# Long\n\n${filler(400, "a")} zircon ${filler(200, "b")}`,
  });
  const [hit] = await find(s.service, "zircon");
  assert.ok(hit.content.includes("zircon"));
  assert.ok(!hit.content.startsWith("a0 "), "not the first window");
  assert.ok(hit.content.split(" ").length <= 300);
  assert.equal((await find(s.service, "zircon")).length, 1, "only windows holding the word");
});

Deno.test("search: an empty brain and a query with no words return no hits", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  assert.deepEqual(await find(s.service, "anything"), []);
  await s.service.remember(ADMIN, { content: "# Something" });
  assert.deepEqual(await find(s.service, "?!"), []);
});

Deno.test("search: recency considers every match, not only the best-ranked ones", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  for (let i = 0; i < 40; i++) {
    await s.service.remember(ADMIN, {
      content: `# Shared topic ${i}\nshared shared shared`,
      path: `/n/${i}.md`,
    });
  }
  // The newest match is the weakest by relevance: one mention deep in a long body.
  await s.service.remember(ADMIN, {
    content: `# Newest\n${filler(200, "filler")} shared`,
    path: "/n/newest.md",
  });
  assert.notEqual(paths(await find(s.service, "shared", { top_k: 30 })).at(-1), "/n/newest.md");
  assert.deepEqual(paths(await find(s.service, "shared", { top_k: 1, sort: "recency" })), [
    "/n/newest.md",
  ]);
});

Deno.test("search: a question's function words do not drag every note into the any-word fallback", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Launch\nWe chose Tuesday for the launch.",
    path: "/a.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Groceries\nWhat is the plan for the milk?",
    path: "/b.md",
  });
  const hits = await find(s.service, "what did we decide about the launch date");
  assert.deepEqual(paths(hits), ["/a.md"], "only the note sharing a content word");
  assert.deepEqual(
    paths(await find(s.service, "what is the")),
    ["/b.md"],
    "a query of only function words still works",
  );
});

Deno.test("search: a brain's only match is found even when another brain has hundreds of better ones", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.createBrain({ name: "Busy", slug: "busy", visibility: "private" });
  await s.storage.units.withTransaction(async () => {
    for (let i = 0; i < 200; i++) {
      await s.service.remember(ADMIN, {
        content: `# Shared ${i}\nshared shared`,
        path: `/n/${i}.md`,
        brain: "busy",
      });
    }
  });
  await s.service.remember(ADMIN, {
    content: `# Quiet\n${filler(150, "w")} shared`,
    path: "/quiet.md",
  });
  assert.deepEqual(paths(await find(s.service, "shared", { brain: "default" })), ["/quiet.md"]);
  assert.equal((await find(s.service, "shared", { brain: "busy", top_k: 100 })).length, 100);
});

import assert from "node:assert/strict";
import { editDistance } from "../../../src/core/text/edit_distance.ts";
import { splitSentences } from "../../../src/core/text/sentences.ts";
import { overlap, singular, stem, STOPWORDS, terms } from "../../../src/core/text/terms.ts";

const DOC = [
  "---",
  "title: Notes. Not a sentence.",
  "---",
  "# Stack overview #",
  "",
  "We use PostgreSQL 16. Backups run nightly!  Are they tested?",
  "Dr. Smith wrote the runbook,",
  "e.g. restore steps, i.e. the boring part.",
  "",
  "- First item. Its second sentence",
  "- [x] done task",
  "  continued on the next line",
  "1. numbered step",
  "",
  "| tool | version |",
  "| ---- | ------- |",
  "| deno | 2.9.6 |",
  "",
  "```ts",
  "const hidden = 1. // Not a sentence.",
  "```",
  "> Quoted line one.",
  "> Quoted line two.",
  "",
  "***",
  "Tokyo: 東京は大きい。大阪も。",
].join("\n");

function texts(text: string): string[] {
  return splitSentences(text).map((s) => s.text);
}

Deno.test("sentences: every sentence is the trimmed slice of the text at its offsets", () => {
  const samples = [
    DOC,
    "  padded.  Twice.  ",
    "no terminator",
    "a\r\nb. c\r\n\r\nd.",
    "",
    "x.y.z. W",
  ];
  for (const text of samples) {
    for (const s of splitSentences(text)) {
      assert.equal(text.slice(s.start, s.end), s.text);
      assert.equal(s.text, s.text.trim());
      assert.ok(s.text.length > 0);
    }
  }
  assert.ok(splitSentences(DOC).length >= 10);
});

Deno.test("sentences: markdown blocks become sentences; fences and front matter are skipped", () => {
  const found = splitSentences(DOC).map((s) => [s.kind, s.text]);
  assert.deepEqual(found, [
    ["heading", "Stack overview"],
    ["prose", "We use PostgreSQL 16."],
    ["prose", "Backups run nightly!"],
    ["prose", "Are they tested?"],
    ["prose", "Dr. Smith wrote the runbook,\ne.g. restore steps, i.e. the boring part."],
    ["item", "First item."],
    ["item", "Its second sentence"],
    ["item", "done task\n  continued on the next line"],
    ["item", "numbered step"],
    ["row", "| tool | version |"],
    ["row", "| deno | 2.9.6 |"],
    ["prose", "Quoted line one."],
    ["prose", "Quoted line two."],
    ["prose", "Tokyo: 東京は大きい。"],
    ["prose", "大阪も。"],
  ]);
});

Deno.test("sentences: abbreviations, decimals, versions and URLs do not end a sentence", () => {
  assert.deepEqual(
    texts(
      "Dr. Smith met Mr. Jones at 3.5 p.m. sharp. Install v1.2.3 from https://example.com/a.b?x=1 today. " +
        "Use e.g. Deno, i.e. Deno 2. See Fig. 3 below. J. R. R. Tolkien wrote it. Done.",
    ),
    [
      "Dr. Smith met Mr. Jones at 3.5 p.m. sharp.",
      "Install v1.2.3 from https://example.com/a.b?x=1 today.",
      "Use e.g. Deno, i.e. Deno 2.",
      "See Fig. 3 below.",
      "J. R. R. Tolkien wrote it.",
      "Done.",
    ],
  );
});

Deno.test("sentences: ellipses with a lowercase continuation, quotes and citation markers", () => {
  assert.deepEqual(
    texts('Wait... then go. He said "stop." Then left. Claim one. [1] Claim two [2]. End.'),
    [
      "Wait... then go.",
      'He said "stop."',
      "Then left.",
      "Claim one. [1]",
      "Claim two [2].",
      "End.",
    ],
  );
});

Deno.test("terms: lowercase words without stopwords, stemmed so forms of a word meet", () => {
  assert.deepEqual(terms("The Databases of the team"), ["databas", "team"]);
  assert.deepEqual(terms("database"), terms("databases"));
  assert.deepEqual(terms("running runs run"), ["run", "run", "run"]);
  assert.deepEqual(terms("use uses used using"), ["us", "us", "us", "us"]);
  assert.deepEqual(terms("libraries library"), ["library", "library"]);
  assert.deepEqual(terms("tested tests testing"), ["test", "test", "test"]);
  assert.deepEqual(terms("the user's café, naïve Ärger"), ["user", "café", "naïve", "ärger"]);
  assert.deepEqual(terms("PostgreSQL 16 and redis"), ["postgresql", "16", "redis"]);
});

Deno.test("terms: negations survive as one term, CJK text becomes character pairs", () => {
  assert.deepEqual(terms("I don't like it"), ["not", "lik"]);
  assert.deepEqual(terms("I never liked it"), ["not", "lik"]);
  assert.notDeepEqual(terms("The user likes YAML."), terms("The user doesn't like YAML."));
  assert.deepEqual(terms("東京都"), ["東京", "京都"]);
  assert.deepEqual(terms("猫"), ["猫"]);
});

Deno.test("terms: STOPWORDS holds function words, not content words", () => {
  for (const w of ["the", "and", "what", "we", "is", "dont"]) assert.ok(STOPWORDS.has(w), w);
  for (const w of ["database", "deadline", "prefer", "tabs"]) assert.ok(!STOPWORDS.has(w), w);
});

Deno.test("terms: singular and stem", () => {
  assert.equal(singular("queries"), "query");
  assert.equal(singular("boxes"), "box");
  assert.equal(singular("status"), "status");
  assert.equal(singular("redis"), "redis");
  assert.equal(stem("preferred"), "prefer");
  assert.equal(stem("string"), "string");
  assert.equal(stem("needed"), "need");
  assert.equal(stem("Zoë"), "Zoë");
});

Deno.test("overlap: the (weighted) fraction of a's distinct terms found in b", () => {
  assert.equal(overlap(["a", "b"], ["a", "c"]), 0.5);
  assert.equal(overlap(["a", "a", "b"], ["a"]), 0.5);
  assert.equal(overlap(["a"], ["a", "b", "c"]), 1);
  assert.equal(overlap(["a", "b", "c"], ["a"]), 1 / 3);
  assert.equal(overlap([], ["a"]), 0);
  assert.equal(overlap(["a"], []), 0);
  const weights = new Map([["a", 3], ["b", 1]]);
  assert.equal(overlap(["a", "b"], ["a"], { weights }), 0.75);
  assert.equal(overlap(["a", "b"], ["b"], { weights }), 0.25);
});

Deno.test("editDistance: Levenshtein; with transpositions a swap is one edit; a limit stops early", () => {
  assert.equal(editDistance("torunament", "tournament"), 2);
  assert.equal(editDistance("torunament", "tournament", { transpositions: true }), 1);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("kitten", "sitting", { limit: 1 }), 2, "limit + 1 once past it");
  assert.equal(editDistance("", "abc"), 3);
});

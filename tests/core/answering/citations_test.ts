import assert from "node:assert/strict";
import { bestQuote, citeAnswer } from "../../../src/core/answering/citations.ts";
import type { AnswerSource } from "../../../src/core/ports/language_model.ts";
import { fuseRanks } from "../../../src/core/search/rrf.ts";

const SOURCES: AnswerSource[] = [
  {
    n: 1,
    chunk_id: "chk_a",
    document_id: "doc_a",
    title: "Deploying",
    path: "/a.md",
    text: "# Deploying\n\nLunch is at noon. Production deploys run every Tuesday at 10:00 UTC.",
  },
  {
    n: 2,
    chunk_id: "chk_b",
    document_id: "doc_b",
    title: "Rollbacks",
    path: "/b.md",
    text: "Rollbacks use the previous image tag. They take five minutes.",
  },
];

function spans(answer: string) {
  return citeAnswer(answer, SOURCES).map((c) => ({
    doc: c.document_id,
    cited: answer.slice(c.answer_start, c.answer_end),
    quote: c.quote,
  }));
}

Deno.test("citations: each [n] cites the text before it, quoting the best sentence verbatim", () => {
  assert.deepEqual(spans("Deploys run on Tuesdays [1], and rollbacks reuse the old tag [2]."), [
    {
      doc: "doc_a",
      cited: "Deploys run on Tuesdays",
      quote: "Production deploys run every Tuesday at 10:00 UTC.",
    },
    {
      doc: "doc_b",
      cited: ", and rollbacks reuse the old tag",
      quote: "Rollbacks use the previous image tag.",
    },
  ]);
});

Deno.test("citations: a marker after the full stop, and [1][2] or [1, 2] groups", () => {
  assert.deepEqual(spans("Deploys are on Tuesday. [1]").map((s) => s.cited), [
    "Deploys are on Tuesday.",
  ]);
  const both = spans("Deploys and rollbacks are routine [1][2].");
  assert.deepEqual(both.map((s) => s.doc), ["doc_a", "doc_b"]);
  assert.deepEqual(spans("Both are routine [1, 2].").map((s) => s.doc), ["doc_a", "doc_b"]);
  assert.deepEqual(spans("Unknown source [7]."), [], "a marker without a source cites nothing");
});

Deno.test("citations: an answer without markers is cited sentence by sentence when clearly sourced", () => {
  const answer = "Production deploys run every Tuesday at 10:00 UTC. I like turtles.";
  const out = spans(answer);
  assert.equal(out.length, 1);
  assert.equal(out[0].cited, "Production deploys run every Tuesday at 10:00 UTC.");
  for (const c of citeAnswer(answer, SOURCES)) {
    assert.ok(SOURCES.some((s) => s.chunk_id === c.chunk_id && s.text.includes(c.quote)));
  }
});

Deno.test("rrf: fused by rank, both lists count, ties keep first-list order", () => {
  const fused = fuseRanks([
    { name: "q", items: ["a", "b", "c"] },
    { name: "s", items: ["c", "b"] },
  ], (x) => x);
  // c: 1/63 + 1/61 beats b: 1/62 + 1/62 beats a: 1/61 alone.
  assert.deepEqual(fused.map((f) => f.item), ["c", "b", "a"]);
  assert.deepEqual(fused[0].ranks, { q: 3, s: 1 });
  const tie = fuseRanks([{ name: "q", items: ["x"] }, { name: "s", items: ["y"] }], (v) => v);
  assert.deepEqual(tie.map((f) => f.item), ["x", "y"]);
});

Deno.test("bestQuote: the sentence sharing most words; a text without sentences gives its start", () => {
  const text = "Lunch is at noon. Production deploys run every Tuesday.";
  assert.equal(bestQuote("when do deploys run", text), "Production deploys run every Tuesday.");
  // Code alone holds no sentence: the quote is the text's start, 512 characters unless told.
  const code = "```\n" + "x".repeat(1000) + "\n```";
  assert.equal(bestQuote("anything", code), code.slice(0, 512));
  assert.equal(bestQuote("anything", code, { fallbackChars: 300 }), code.slice(0, 300));
});

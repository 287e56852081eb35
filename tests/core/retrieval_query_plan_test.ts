/** @module Query understanding (core/query_plan.ts): terms, their roles, what is searched. */
import assert from "node:assert/strict";
import { isFunctionWord, MAX_SEARCHED_TERMS, planQuery } from "../../src/core/search/query_plan.ts";

const searched = (text: string) =>
  planQuery(text).searched.map((t) => `${t.role}:${t.kind}:${t.words.join(" ")}`);

Deno.test("query plan: a question's function words are not searched", () => {
  assert.deepEqual(searched("What did we decide about the launch?"), [
    "content:word:decide",
    "content:word:launch",
  ]);
  assert.deepEqual(searched("How does she prioritize self-care?"), [
    "content:word:prioritize",
    "content:phrase:self care",
  ]);
});

Deno.test("query plan: a capitalised word inside a sentence, or a word in capitals, is a name", () => {
  assert.deepEqual(searched("What did John say about NYC, enticing Tim to visit?"), [
    "name:word:John",
    "content:word:say",
    "name:word:NYC",
    "content:word:enticing",
    "name:word:Tim",
    "content:word:visit",
  ]);
  // The first word of a sentence is capitalised anyway.
  assert.deepEqual(searched("Kayak trips. Lake Tahoe"), [
    "content:word:Kayak",
    "content:word:trips",
    "content:word:Lake",
    "name:word:Tahoe",
  ]);
});

Deno.test("query plan: a possessive is its noun; contractions are function words", () => {
  assert.deepEqual(searched("What is Melanie's favourite book? I don't know"), [
    "name:word:Melanie",
    "content:word:favourite",
    "content:word:book",
    "content:word:know",
  ]);
});

Deno.test("query plan: quotes make a required phrase, a trailing * a prefix", () => {
  const plan = planQuery('"new york" pizz* "to be"');
  assert.deepEqual(plan.searched.map((t) => [t.words.join(" "), t.kind, t.required ?? false]), [
    ["new york", "phrase", true],
    ["pizz", "prefix", false],
    ["to be", "phrase", true],
  ]);
});

Deno.test("query plan: only function words are searched when nothing else is left", () => {
  assert.deepEqual(searched("what is the"), [
    "function:word:what",
    "function:word:is",
    "function:word:the",
  ]);
  assert.deepEqual(searched("?!"), []);
});

Deno.test("query plan: operators, column filters and repeats are plain words, once", () => {
  assert.deepEqual(searched("NEAR(kayak paddle) title:kayak kayak AND kayak ^"), [
    "content:phrase:NEAR kayak",
    "content:word:paddle",
    "content:phrase:title kayak",
    "content:word:kayak",
  ]);
  const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
  assert.equal(planQuery(many).searched.length, MAX_SEARCHED_TERMS);
});

Deno.test("query plan: function words come from the Snowball list, with contraction pieces", () => {
  for (const w of ["the", "Which", "didn't", "didn", "t", "ll", "a"]) {
    assert.ok(isFunctionWord(w), w);
  }
  for (const w of ["won", "kayak", "1", "melanie"]) assert.ok(!isFunctionWord(w), w);
});

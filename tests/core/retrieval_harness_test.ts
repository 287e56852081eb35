/**
 * @module The retrieval benchmark's harness (bench/retrieval.ts) on a tiny hand-written file of
 * the LoCoMo format: reading it (misspelt evidence ids, skipped categories), recall at k, the raw
 * FTS5 baseline, and a whole run through a spawned `engram stdio`.
 */
import assert from "node:assert/strict";
import { FtsBaseline, orExpression } from "../../bench/fts_baseline.ts";
import { parseLocomo, selectIndexes } from "../../bench/locomo.ts";
import { recallAt } from "../../bench/recall_metrics.ts";
import { tempDir } from "../helpers.ts";
import { runRetrievalBench } from "./_retrieval_run.ts";

const FIXTURE = new URL("../fixtures/retrieval/mini_locomo.json", import.meta.url).pathname;
const text = () => Deno.readTextFileSync(FIXTURE);

Deno.test("retrieval harness: a LoCoMo file becomes turn and session documents", () => {
  const [first, second] = parseLocomo(text());
  assert.equal(first.sampleId, "mini-1");
  assert.equal(first.turnDocuments.length, 7);
  assert.equal(first.sessionDocuments.length, 2);
  assert.equal(second.turnDocuments.length, 2);
  const bread = first.turnDocuments.find((d) => d.unit === "D1:4")!;
  assert.equal(bread.title, "Ben, 9:00 am on 3 March, 2024");
  assert.equal(
    bread.content,
    "Here is my new bread. [shared an image: a photo of a sourdough loaf on a wooden board]",
  );
  assert.equal(bread.path, "/locomo/mini-1/session-01/D1-4.md");
  const session = first.sessionDocuments[1];
  assert.equal(session.unit, "S2");
  assert.equal(session.title, "Session 2: 6:30 pm on 20 March, 2024");
  assert.match(session.content, /^Ben: How was the trip\?\n\nAda: Windy!/);
});

Deno.test("retrieval harness: questions keep their evidence, however it is spelt", () => {
  const [first, second] = parseLocomo(text());
  // Category 5 (adversarial) and a question whose evidence names no turn are not asked.
  assert.deepEqual(first.questions.map((q) => [q.turns, q.sessions, q.category]), [
    [["D1:1"], ["S1"], 1],
    [["D1:3"], ["S1"], 4],
    [["D1:4", "D2:3"], ["S1", "S2"], 1],
    [["D2:2"], ["S2"], 2],
  ]);
  assert.equal(second.questions.length, 2);
});

Deno.test("retrieval harness: a file of another shape is refused with the reason", () => {
  assert.throws(() => parseLocomo("{}"), /JSON array of conversations/);
  assert.throws(() => parseLocomo('[{"qa": []}]'), /conversation 0: no "conversation" object/);
  assert.throws(
    () => parseLocomo('[{"conversation": {"session_1": [{"text": "x"}]}}]'),
    /lacks "speaker" or "text"/,
  );
});

Deno.test("retrieval harness: --conversations selects ranges and lists", () => {
  assert.deepEqual(selectIndexes(undefined, 3), [0, 1, 2]);
  assert.deepEqual(selectIndexes("0-4", 10), [0, 1, 2, 3, 4]);
  assert.deepEqual(selectIndexes("7,2,5-6", 10), [2, 5, 6, 7]);
  assert.throws(() => selectIndexes("9", 5), /conversation 9 does not exist \(the file has 5\)/);
  assert.throws(() => selectIndexes("one", 5), /ranges like 0-4/);
});

Deno.test("retrieval harness: recall at k counts a question found when any evidence unit is in the top k", () => {
  const r = recallAt([
    { wanted: ["a"], got: ["a", "b"] },
    { wanted: ["c", "d"], got: ["x", "x", "x", "x", "d"] },
    { wanted: ["e"], got: [] },
    { wanted: ["f", "g"], got: ["f", "g"] },
  ]);
  assert.equal(r.questions, 4);
  assert.deepEqual(r.any, { 1: 0.5, 5: 0.75, 10: 0.75 });
  // Shares: 1, 0.5, 0, 1 at k = 5; 1, 0, 0, 0.5 at k = 1.
  assert.deepEqual(r.fraction, { 1: 0.375, 5: 0.625, 10: 0.625 });
});

Deno.test("retrieval harness: the raw FTS5 baseline ORs every word of the question", () => {
  assert.equal(orExpression('What\'s "NEAR(" col:x?'), '"what" OR "s" OR "near" OR "col" OR "x"');
  assert.equal(orExpression("?!"), null);
  const [first] = parseLocomo(text());
  using fts = new FtsBaseline(first.turnDocuments);
  assert.equal(fts.search("What did Ada buy for the lake?", 10)[0], "D1:1");
  assert.deepEqual(fts.search("zzyzx", 10), []);
});

Deno.test("retrieval harness: a whole run through engram stdio prints recall for both units", async () => {
  await using dir = await tempDir();
  const run = await runRetrievalBench([
    FIXTURE,
    "--json",
    `${dir.path}/outcomes.json`,
  ]);
  const stdout = run.stdout;
  assert.equal(run.code, 0, run.stderr);
  assert.match(stdout, /turn\s+engram memory_search\s+6\s/);
  assert.match(stdout, /session\s+raw FTS5 \(bm25, OR\)\s+6\s/);
  const outcomes = JSON.parse(await Deno.readTextFile(`${dir.path}/outcomes.json`));
  assert.equal(outcomes.turn.engram.length, 6);
  const kayak = outcomes.turn.engram.find((o: { question: string }) =>
    o.question === "What did Ada finally buy for the lake?"
  );
  assert.equal(kayak.got[0], "D1:1", "the kayak turn is the first hit");
  for (const o of outcomes.session.engram) {
    assert.equal(new Set(o.got).size, o.got.length, "one hit per session document");
  }
});

/**
 * @module The retrieval benchmark's local embedding server (bench/embedding_server.ts) on a tiny
 * hand-written file of wink's format: engram's own OpenAI embedder talks to it over loopback, it
 * weights frequent words down (SIF), answers unknown text with the unknown-word vector, and refuses
 * what is not an embeddings request; and a whole harness run with vectors fused.
 */
import assert from "node:assert/strict";
import { startEmbeddingServer } from "../../bench/embedding_server.ts";
import { OpenAiProvider } from "../../src/providers/openai.ts";
import { tempDir } from "../helpers.ts";
import { runRetrievalBench } from "./_retrieval_run.ts";

const VECTORS = new URL("../fixtures/retrieval/mini_vectors.json", import.meta.url).pathname;
const LOCOMO = new URL("../fixtures/retrieval/mini_locomo.json", import.meta.url).pathname;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

Deno.test("embedding server: engram's OpenAI embedder gets SIF-weighted, normalised GloVe vectors", async () => {
  await using server = await startEmbeddingServer(VECTORS);
  const embedder = new OpenAiProvider({
    name: "glove",
    baseUrl: server.url,
    model: "none",
    embeddingModel: server.model,
  }).embedder()!;
  const [kayak, boat, bread, theKayak, unknown] = await embedder.embed([
    "Kayak!",
    "a boat",
    "bread",
    "the kayak",
    "zzz qqq",
  ]);
  for (const v of [kayak, boat, bread, theKayak, unknown]) {
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, "unit length");
  }
  assert.ok(dot(kayak, boat) > 0.9, "neighbours in the word space are close");
  assert.ok(dot(kayak, bread) < 0.1, "unrelated words are not");
  // "the" is the most frequent word: SIF weighs it half as much as "kayak" (ranks 1 and 2 of 6),
  // so "the kayak" stays nearer "kayak" (0.90) than a plain mean of the two vectors would (0.82).
  assert.ok(dot(theKayak, kayak) > 0.89, String(dot(theKayak, kayak)));
  assert.ok(Math.abs(unknown[0] - unknown[1]) < 1e-6, "no known word: the unknown-word vector");
});

Deno.test("embedding server: anything but an embeddings request is refused", async () => {
  await using server = await startEmbeddingServer(VECTORS);
  const get = await fetch(`${server.url}/embeddings`);
  assert.equal(get.status, 404);
  assert.match((await get.json()).error.message, /only POST \/v1\/embeddings/);
  const bad = await fetch(`${server.url}/embeddings`, {
    method: "POST",
    body: JSON.stringify({ input: [1, 2] }),
  });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error.message, /input: a string or strings/);
});

Deno.test("embedding server: a harness run with --embeddings fuses vectors through engram stdio", async () => {
  await using dir = await tempDir();
  const run = await runRetrievalBench([
    LOCOMO,
    "--embeddings",
    VECTORS,
    "--json",
    `${dir.path}/outcomes.json`,
  ]);
  const stdout = run.stdout;
  assert.equal(run.code, 0, run.stderr);
  assert.match(stdout, /turn\s+engram \+ GloVe vectors\s+6\s/);
  const outcomes = JSON.parse(await Deno.readTextFile(`${dir.path}/outcomes.json`));
  assert.equal(outcomes.turn.engram.length, 6);
});

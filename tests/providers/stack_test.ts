import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { AnswerSource } from "../../src/core/ports/language_model.ts";
import { ModelStack, ProviderSet } from "../../src/providers/stack.ts";
import type { ChatModel, ChatRequest, ChatResult } from "../../src/providers/types.ts";
import { startLlmServer } from "../fixtures/llm_server.ts";

/** A chat model that plays a script: deltas to stream, then an optional failure. */
function scripted(
  name: string,
  script: { deltas?: string[]; fail?: EngramError; text?: string },
): ChatModel & { calls: number } {
  const model = {
    name,
    calls: 0,
    async chat(req: ChatRequest): Promise<ChatResult> {
      model.calls++;
      for (const d of script.deltas ?? []) await req.onDelta?.(d);
      if (script.fail) throw script.fail;
      return { text: script.text ?? (script.deltas ?? []).join(""), model: name };
    },
  };
  return model;
}

const down = () => new EngramError("provider_unavailable", "provider down");
const SOURCES: AnswerSource[] = [{
  n: 1,
  chunk_id: "chk_1",
  document_id: "doc_1",
  title: "Deploying",
  path: "/memory/project/deploy.md",
  text: "Production deploys run every Tuesday at 10:00 UTC.",
}];

Deno.test("stack: a provider failing before any output falls through to the next", async () => {
  const first = scripted("first", { fail: down() });
  const second = scripted("second", { deltas: ["Tuesdays [1]."] });
  const stack = new ModelStack([first, second], { logger: silentLogger });
  const deltas: string[] = [];
  const a = await stack.answer({
    question: "when?",
    sources: SOURCES,
    onDelta: (d) => void deltas.push(d),
  });
  assert.equal(a.provider, "second");
  assert.deepEqual(deltas, ["Tuesdays [1]."]);
  assert.equal(first.calls, 1);
});

Deno.test("stack: a failure after output ends the answer with the error, no fallback", async () => {
  const first = scripted("first", { deltas: ["Tues"], fail: down() });
  const second = scripted("second", { deltas: ["never"] });
  const stack = new ModelStack([first, second], { logger: silentLogger });
  await assert.rejects(
    stack.answer({ question: "when?", sources: SOURCES, onDelta: () => {} }),
    (e: unknown) =>
      e instanceof EngramError && e.code === "provider_unavailable" &&
      /provider "first" stopped midway: provider down/.test(e.message),
  );
  assert.equal(second.calls, 0);
});

Deno.test("stack: every model down → the extractive engine answers, and reflects", async () => {
  const stack = new ModelStack([scripted("a", { fail: down() })], { logger: silentLogger });
  const a = await stack.answer({ question: "When do production deploys run?", sources: SOURCES });
  assert.equal(a.provider, "extractive");
  assert.match(a.text, /Tuesday.*\[1\]/);
  const r = await stack.reflect([{ role: "user", content: "It works now, thanks!" }]);
  assert.equal(r.provider, "extractive");
});

Deno.test("stack: fact extraction uses models only, and fails loudly when all fail", async () => {
  const stack = new ModelStack([scripted("a", { fail: down() }), scripted("b", { text: "nope" })], {
    logger: silentLogger,
  });
  await assert.rejects(
    stack.extractFacts([{ role: "user", content: "I prefer tabs over spaces." }]),
    (e: unknown) =>
      e instanceof EngramError && e.code === "provider_unavailable" && e.retryable &&
      /every configured provider: provider down; provider "b" returned malformed JSON/.test(
        e.message,
      ),
  );
  const none = new ModelStack([], { logger: silentLogger });
  const facts = await none.extractFacts([{ role: "user", content: "I prefer tabs over spaces." }]);
  assert.equal(facts.provider, "extractive");
  assert.equal(facts.facts.length, 1);
  const shaped = new ModelStack([
    scripted("c", { text: '{"facts":[{"text":"x","subject":"","attribute":"a","value":"v"}]}' }),
  ], { logger: silentLogger });
  await assert.rejects(
    shaped.extractFacts([{ role: "user", content: "hi" }]),
    /wrong shape for fact extraction: facts\.0\.subject/,
  );
});

Deno.test("provider set: sampling only inside a session that offers it; embedder from config", async () => {
  await using llm = await startLlmServer();
  const set = new ProviderSet([
    {
      type: "openai",
      base_url: llm.openaiBaseUrl,
      model: "m",
      embedding_model: "e",
      timeout_ms: 5000,
      max_retries: 0,
      max_tokens: 256,
    },
    { type: "sampling", max_tokens: 256 },
    { type: "extractive" },
    {
      type: "anthropic",
      model: "never",
      api_key: "k",
      base_url: "http://127.0.0.1:9",
      timeout_ms: 100,
      max_retries: 0,
      max_tokens: 16,
    },
  ], { logger: silentLogger });
  assert.deepEqual(set.names, ["openai", "sampling"], "extractive ends the list");
  assert.equal(set.embedder?.model, "e");
  assert.deepEqual(set.background().chats.map((c) => c.name), ["openai"]);
  const session = set.forSession(() => Promise.resolve({ content: { type: "text", text: "hi" } }));
  assert.deepEqual(session.chats.map((c) => c.name), ["openai", "sampling"]);
  const defaults = new ProviderSet([], { logger: silentLogger });
  assert.deepEqual(defaults.background().chats, []);
  assert.equal(defaults.forSession(() => Promise.resolve({ content: [] })).chats.length, 1);
});

/** @module Tests for OpenAiProvider against the fake LLM server over real loopback HTTP. */
import assert from "node:assert/strict";
import { type OpenAiOptions, OpenAiProvider } from "../../src/providers/openai.ts";
import { cosine, hashedEmbedding } from "../fixtures/hashed_embedding.ts";
import { type LlmServer, startLlmServer } from "../fixtures/llm_server.ts";
import { assertAborted, assertFails, closedPort, literal, within } from "./_util.ts";

const KEY = "sk-test-SECRET-0123456789";

function provider(server: LlmServer, options: Partial<OpenAiOptions> = {}): OpenAiProvider {
  return new OpenAiProvider({
    name: "openai",
    baseUrl: server.openaiBaseUrl,
    model: "gpt-test",
    apiKey: KEY,
    retryBaseMs: 1,
    ...options,
  });
}

const HELLO = [{ role: "user" as const, content: "Say hello" }];

Deno.test("openai: streams deltas in order and they join to the text", async () => {
  await using server = await startLlmServer();
  server.enqueue({ text: "Hello there, world!", chunks: ["Hel", "lo there", ", ", "world!"] });
  const deltas: string[] = [];
  const result = await provider(server).chat({
    system: "Be brief.",
    messages: HELLO,
    onDelta: (delta) => {
      deltas.push(delta);
    },
  });
  assert.deepEqual(deltas, ["Hel", "lo there", ", ", "world!"]);
  assert.equal(result.text, "Hello there, world!");
  assert.equal(result.model, "gpt-test");
  const [request] = server.requests;
  assert.equal(request.path, "/v1/chat/completions");
  assert.equal(request.headers["authorization"], `Bearer ${KEY}`);
  assert.deepEqual(request.body, {
    model: "gpt-test",
    messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Say hello" }],
    stream: true,
  });
});

Deno.test("openai: awaits an async onDelta before passing the next delta", async () => {
  await using server = await startLlmServer();
  server.enqueue({ text: "abc", chunks: ["a", "b", "c"] });
  const log: string[] = [];
  await provider(server).chat({
    messages: HELLO,
    onDelta: async (delta) => {
      log.push(`start ${delta}`);
      // A macrotask gap: without the await, the next delta would start inside it.
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`end ${delta}`);
    },
  });
  assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
});

Deno.test("openai: a non-streamed chat returns the message and options reach the request", async () => {
  await using server = await startLlmServer();
  server.enqueue({ text: '{"ok":true}' });
  const result = await provider(server, { maxTokens: 99 }).chat({
    messages: HELLO,
    json: true,
    temperature: 0.2,
  });
  assert.deepEqual(result, { text: '{"ok":true}', model: "gpt-test" });
  assert.deepEqual(server.requests[0].body, {
    model: "gpt-test",
    messages: [{ role: "user", content: "Say hello" }],
    stream: false,
    max_tokens: 99,
    temperature: 0.2,
    response_format: { type: "json_object" },
  });
});

Deno.test("openai: no key, no Authorization header", async () => {
  await using server = await startLlmServer();
  await provider(server, { apiKey: undefined }).chat({ messages: HELLO });
  assert.equal(server.requests[0].headers["authorization"], undefined);
});

Deno.test("openai: a server that ignores stream: true still yields the text as one delta", async () => {
  await using server = await startLlmServer();
  server.enqueue({
    status: 200,
    body: { model: "served-model", choices: [{ message: { content: "whole reply" } }] },
  });
  const deltas: string[] = [];
  const result = await provider(server).chat({
    messages: HELLO,
    onDelta: (d) => void deltas.push(d),
  });
  assert.deepEqual(deltas, ["whole reply"]);
  assert.deepEqual(result, { text: "whole reply", model: "served-model" });
});

Deno.test("openai: a 429 with Retry-After: 0, then success, succeeds on the second request", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 429, headers: { "retry-after": "0" } }, { text: "fine now" });
  // A large backoff base proves Retry-After, not the backoff, set the wait.
  const result = await within(
    5000,
    provider(server, { retryBaseMs: 60_000 }).chat({ messages: HELLO }),
  );
  assert.equal(result.text, "fine now");
  assert.equal(server.requests.length, 2);
});

Deno.test("openai: 429 on every attempt is rate_limited with the API's message", async () => {
  await using server = await startLlmServer();
  server.setDefault({ status: 429, headers: { "retry-after": "0" } });
  await assertFails(
    provider(server).chat({ messages: HELLO }),
    "rate_limited",
    /HTTP 429 Too Many Requests after 3 attempts: Rate limit reached/,
  );
  assert.equal(server.requests.length, 3);
});

Deno.test("openai: HTTP 500 three times is provider_unavailable naming provider, URL and status", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 500 }, { status: 500 }, { status: 500 }, { text: "too late" });
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: () => {} }),
    "provider_unavailable",
    literal(`provider "openai" (${server.openaiBaseUrl}) failed: HTTP 500`),
    /after 3 attempts: The server had an error/,
  );
  assert.equal(server.requests.length, 3);
});

Deno.test("openai: a stream that dies midway fails after delivering the deltas before it", async () => {
  await using server = await startLlmServer();
  server.enqueue({ dieAfter: ["partial ", "answer"] }, { text: "never sent" });
  const deltas: string[] = [];
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: (d) => void deltas.push(d) }),
    "provider_unavailable",
    /stream ended midway/,
  );
  assert.deepEqual(deltas, ["partial ", "answer"]);
  assert.equal(server.requests.length, 1, "a started stream is never re-sent");
});

Deno.test("openai: a stream that ends cleanly without [DONE] is ended midway", async () => {
  await using server = await startLlmServer();
  const chunk = { choices: [{ index: 0, delta: { content: "cut" }, finish_reason: null }] };
  server.enqueue({
    status: 200,
    headers: { "content-type": "text/event-stream" },
    body: `data: ${JSON.stringify(chunk)}\n\n`,
  });
  const deltas: string[] = [];
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: (d) => void deltas.push(d) }),
    "provider_unavailable",
    /stream ended midway: no \[DONE\]/,
  );
  assert.deepEqual(deltas, ["cut"]);
});

Deno.test("openai: a non-streamed reply cut off or stalled midway fails", async () => {
  await using server = await startLlmServer();
  server.enqueue({ dieAfter: ["half"] }, { stallAfter: ["half"] });
  const openai = provider(server, { timeoutMs: 300 });
  await assertFails(openai.chat({ messages: HELLO }), "provider_unavailable", /ended midway/);
  await assertFails(
    within(5000, openai.chat({ messages: HELLO })),
    "provider_unavailable",
    /timed out after 300 ms waiting for the next chunk/,
  );
  assert.equal(server.requests.length, 2);
});

Deno.test("openai: an error object inside the stream fails with the API's message", async () => {
  await using server = await startLlmServer();
  server.enqueue({ errorAfter: ["so far"], error: { message: "model crashed" } });
  const deltas: string[] = [];
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: (d) => void deltas.push(d) }),
    "provider_unavailable",
    /stream ended midway: the API sent an error: model crashed/,
  );
  assert.deepEqual(deltas, ["so far"]);
});

Deno.test("openai: a hung provider fails within the timeout, without retrying", async () => {
  await using server = await startLlmServer();
  server.enqueue({ hang: true });
  const started = performance.now();
  await assertFails(
    within(5000, provider(server, { timeoutMs: 300 }).chat({ messages: HELLO })),
    "provider_unavailable",
    /timed out after 300 ms waiting for a response/,
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 290 && elapsed < 2000, `took ${elapsed} ms`);
  await within(5000, server.disconnected());
  assert.equal(server.requests.length, 1);
});

Deno.test("openai: a stream that goes silent fails with the idle timeout", async () => {
  await using server = await startLlmServer();
  server.enqueue({ stallAfter: ["first"] });
  const deltas: string[] = [];
  await assertFails(
    within(
      5000,
      provider(server, { timeoutMs: 300 }).chat({
        messages: HELLO,
        onDelta: (d) => void deltas.push(d),
      }),
    ),
    "provider_unavailable",
    /timed out after 300 ms waiting for the next chunk/,
  );
  assert.deepEqual(deltas, ["first"]);
  await within(5000, server.disconnected());
});

Deno.test("openai: aborting cancels a stalled stream and the server sees the disconnect", async () => {
  await using server = await startLlmServer();
  server.enqueue({ stallAfter: ["one ", "two"] });
  const controller = new AbortController();
  const deltas: string[] = [];
  const chat = provider(server).chat({
    messages: HELLO,
    signal: controller.signal,
    onDelta: (delta) => {
      deltas.push(delta);
      if (deltas.length === 2) controller.abort();
    },
  });
  await assertAborted(within(5000, chat));
  await within(5000, server.disconnected());
  assert.deepEqual(deltas, ["one ", "two"]);
  assert.equal(server.requests.length, 1);
});

Deno.test("openai: an onDelta that throws stops the stream and the error reaches the caller", async () => {
  await using server = await startLlmServer();
  server.enqueue({ stallAfter: ["x"] });
  await assert.rejects(
    provider(server).chat({
      messages: HELLO,
      onDelta: () => {
        throw new Error("consumer gone");
      },
    }),
    /consumer gone/,
  );
  await within(5000, server.disconnected());
});

Deno.test("openai: a rejected key names the fix and never the key", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 401 });
  const err = await assertFails(
    provider(server).chat({ messages: HELLO }),
    "provider_unavailable",
    /HTTP 401 Unauthorized: the API key was rejected; check api_key/,
  );
  assert.ok(!err.message.includes("SECRET"), err.message);
  assert.equal(server.requests.length, 1, "auth failures are not retried");
});

Deno.test("openai: an unreachable port is provider_unavailable", async () => {
  const port = closedPort();
  const openai = new OpenAiProvider({
    name: "local",
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: "m",
    retryBaseMs: 1,
  });
  await assertFails(
    openai.chat({ messages: HELLO }),
    "provider_unavailable",
    literal(`provider "local" (http://127.0.0.1:${port}/v1) failed: connection failed after 3`),
  );
});

Deno.test("openai: embeddings come back in input order, batched", async () => {
  await using server = await startLlmServer();
  const openai = provider(server, { embeddingModel: "embed-test", embeddingBatchSize: 2 });
  const embedder = openai.embedder();
  assert.ok(embedder);
  assert.equal(embedder.name, "openai");
  assert.equal(embedder.model, "embed-test");
  const texts = ["red apples", "green apples", "fast cars", "red cars", "apples"];
  const vectors = await embedder.embed(texts);
  assert.equal(vectors.length, 5);
  texts.forEach((text, i) => {
    assert.ok(vectors[i] instanceof Float32Array);
    assert.deepEqual([...vectors[i]], [...Float32Array.from(hashedEmbedding(text))]);
  });
  assert.ok(cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]));
  assert.deepEqual(server.requests.map((r) => (r.body as { input: string[] }).input), [
    ["red apples", "green apples"],
    ["fast cars", "red cars"],
    ["apples"],
  ]);
  assert.equal(server.requests[0].path, "/v1/embeddings");
  assert.equal((server.requests[0].body as { model: string }).model, "embed-test");
  assert.deepEqual(await embedder.embed([]), []);
  assert.equal(server.requests.length, 3);
});

Deno.test("openai: embeddings retry a 500 and report a persistent one", async () => {
  await using server = await startLlmServer();
  const embedder = provider(server, { embeddingModel: "e" }).embedder()!;
  server.failEmbeddings(1);
  assert.equal((await embedder.embed(["hello"])).length, 1);
  assert.equal(server.requests.length, 2);
  server.failEmbeddings(3, { status: 503 });
  await assertFails(embedder.embed(["hello"]), "provider_unavailable", /HTTP 503.*after 3/);
});

Deno.test("openai: no embedding model, no embedder", async () => {
  await using server = await startLlmServer();
  assert.equal(provider(server).embedder(), undefined);
});

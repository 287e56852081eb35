/** @module Tests for AnthropicProvider against the fake LLM server over real loopback HTTP. */
import assert from "node:assert/strict";
import { type AnthropicOptions, AnthropicProvider } from "../../src/providers/anthropic.ts";
import { type LlmServer, startLlmServer } from "../fixtures/llm_server.ts";
import { assertAborted, assertFails, closedPort, literal, within } from "./_util.ts";

const KEY = "sk-ant-SECRET-0123456789";

function provider(server: LlmServer, options: Partial<AnthropicOptions> = {}): AnthropicProvider {
  return new AnthropicProvider({
    name: "claude",
    baseUrl: server.anthropicBaseUrl,
    model: "claude-test",
    apiKey: KEY,
    retryBaseMs: 1,
    ...options,
  });
}

const HELLO = [{ role: "user" as const, content: "Say hello" }];

Deno.test("anthropic: streams text deltas in order, skipping ping and block events", async () => {
  await using server = await startLlmServer();
  server.enqueue({ text: "Hi, how are you?", chunks: ["Hi", ", how", " are you?"] });
  const deltas: string[] = [];
  const result = await provider(server).chat({
    system: "Be kind.",
    messages: HELLO,
    onDelta: (delta) => void deltas.push(delta),
  });
  assert.deepEqual(deltas, ["Hi", ", how", " are you?"]);
  assert.deepEqual(result, { text: "Hi, how are you?", model: "claude-test" });
  const [request] = server.requests;
  assert.equal(request.path, "/v1/messages");
  assert.equal(request.headers["x-api-key"], KEY);
  assert.equal(request.headers["anthropic-version"], "2023-06-01");
  assert.match(request.headers["content-type"], /^application\/json/);
  assert.deepEqual(request.body, {
    model: "claude-test",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Say hello" }],
    system: "Be kind.",
    stream: true,
  });
});

Deno.test("anthropic: a non-streamed reply joins its text blocks", async () => {
  await using server = await startLlmServer();
  server.enqueue({
    status: 200,
    body: {
      type: "message",
      model: "claude-served",
      content: [
        { type: "text", text: "First. " },
        { type: "tool_use", id: "t", name: "x", input: {} },
        { type: "text", text: "Second." },
      ],
    },
  });
  const result = await provider(server, { maxTokens: 77 }).chat({ messages: HELLO });
  assert.deepEqual(result, { text: "First. Second.", model: "claude-served" });
  const body = server.requests[0].body as Record<string, unknown>;
  assert.equal(body.max_tokens, 77);
  assert.equal(body.stream, undefined);
});

Deno.test("anthropic: the fixture's real non-streamed format round-trips", async () => {
  await using server = await startLlmServer();
  server.enqueue({ text: "plain reply" });
  assert.deepEqual(await provider(server).chat({ messages: HELLO }), {
    text: "plain reply",
    model: "claude-test",
  });
});

Deno.test("anthropic: json: true asks for a single JSON object in the system prompt", async () => {
  await using server = await startLlmServer();
  await provider(server).chat({ system: "Extract facts.", messages: HELLO, json: true });
  await provider(server).chat({ messages: HELLO, json: true });
  const [withSystem, without] = server.requests.map((r) => (r.body as { system: string }).system);
  assert.match(withSystem, /^Extract facts\.\n\n.*single JSON object/);
  assert.match(without, /^Reply with a single JSON object/);
});

Deno.test("anthropic: an error event midway fails with its type, after the deltas before it", async () => {
  await using server = await startLlmServer();
  server.enqueue({ errorAfter: ["Once upon"] });
  const deltas: string[] = [];
  const err = await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: (d) => void deltas.push(d) }),
    "provider_unavailable",
    /stream ended midway: the API sent an error: overloaded_error: Overloaded/,
  );
  assert.equal(err.retryable, true);
  assert.deepEqual(deltas, ["Once upon"]);
  assert.equal(server.requests.length, 1);
});

Deno.test("anthropic: a stream cut before message_stop fails as ended midway", async () => {
  await using server = await startLlmServer();
  server.enqueue({ dieAfter: ["a", "b"] });
  const deltas: string[] = [];
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: (d) => void deltas.push(d) }),
    "provider_unavailable",
    literal(`provider "claude" (${server.anthropicBaseUrl}) failed: stream ended midway`),
  );
  assert.deepEqual(deltas, ["a", "b"]);
});

Deno.test("anthropic: a stream that ends cleanly without message_stop is ended midway", async () => {
  await using server = await startLlmServer();
  const delta = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } };
  server.enqueue({
    status: 200,
    headers: { "content-type": "text/event-stream" },
    body: `event: content_block_delta\ndata: ${JSON.stringify(delta)}\n\n`,
  });
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: () => {} }),
    "provider_unavailable",
    /stream ended midway: no message_stop/,
  );
});

Deno.test("anthropic: a 429 then success retries once", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 429, headers: { "retry-after": "0" } });
  const result = await within(
    5000,
    provider(server, { retryBaseMs: 60_000 }).chat({ messages: HELLO }),
  );
  assert.equal(result.text, "Hello from the fake LLM.");
  assert.equal(server.requests.length, 2);
});

Deno.test("anthropic: 529 overloaded on every attempt is provider_unavailable", async () => {
  await using server = await startLlmServer();
  server.setDefault({ status: 529 });
  await assertFails(
    provider(server).chat({ messages: HELLO, onDelta: () => {} }),
    "provider_unavailable",
    /HTTP 529 after 3 attempts: Overloaded/,
  );
  assert.equal(server.requests.length, 3);
});

Deno.test("anthropic: a 400 is not retried and carries the API's message", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 400 });
  await assertFails(
    provider(server).chat({ messages: HELLO }),
    "provider_unavailable",
    /HTTP 400 Bad Request: messages: field required$/,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("anthropic: a rejected key names the fix and never the key", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 401 });
  const err = await assertFails(
    provider(server).chat({ messages: HELLO }),
    "provider_unavailable",
    /HTTP 401 Unauthorized: the API key was rejected; check api_key/,
  );
  assert.ok(!err.message.includes("SECRET"), err.message);
});

Deno.test("anthropic: a hung provider times out", async () => {
  await using server = await startLlmServer();
  server.enqueue({ hang: true });
  await assertFails(
    within(5000, provider(server, { timeoutMs: 300 }).chat({ messages: HELLO, onDelta: () => {} })),
    "provider_unavailable",
    /timed out after 300 ms/,
  );
  await within(5000, server.disconnected());
});

Deno.test("anthropic: aborting cancels a stalled stream and the server sees the disconnect", async () => {
  await using server = await startLlmServer();
  server.enqueue({ stallAfter: ["thinking"] });
  const controller = new AbortController();
  const chat = provider(server).chat({
    messages: HELLO,
    signal: controller.signal,
    onDelta: () => controller.abort(),
  });
  await assertAborted(within(5000, chat));
  await within(5000, server.disconnected());
});

Deno.test("anthropic: an unreachable port is provider_unavailable", async () => {
  const claude = new AnthropicProvider({
    name: "claude",
    baseUrl: `http://127.0.0.1:${closedPort()}`,
    model: "m",
    apiKey: KEY,
    maxRetries: 0,
  });
  await assertFails(
    claude.chat({ messages: HELLO }),
    "provider_unavailable",
    /connection failed: /,
  );
});

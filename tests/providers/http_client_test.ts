/** @module Tests for the shared HTTP layer: Retry-After, aborts, redaction, error text. */
import assert from "node:assert/strict";
import {
  apiErrorMessage,
  HttpClient,
  type HttpClientOptions,
  parseRetryAfter,
  readText,
} from "../../src/providers/http_client.ts";
import { type LlmServer, startLlmServer } from "../fixtures/llm_server.ts";
import { assertAborted, assertFails, within } from "./_util.ts";

const KEY = "sk-SECRET-abcdef";

function client(server: LlmServer, options: Partial<HttpClientOptions> = {}) {
  return {
    http: new HttpClient({
      name: "p",
      baseUrl: server.openaiBaseUrl,
      headers: { authorization: `Bearer ${KEY}` },
      retryBaseMs: 1,
      ...options,
    }),
    url: `${server.openaiBaseUrl}/chat/completions`,
  };
}

Deno.test("parseRetryAfter: seconds, HTTP dates, retry-after-ms, junk", () => {
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "0" })), 0);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "2.5" })), 2500);
  assert.equal(parseRetryAfter(new Headers({ "retry-after-ms": "120", "retry-after": "9" })), 120);
  const future = new Date(Date.now() + 60_000).toUTCString();
  const ms = parseRetryAfter(new Headers({ "retry-after": future }))!;
  assert.ok(ms > 50_000 && ms <= 60_000, String(ms));
  const past = new Date(Date.now() - 60_000).toUTCString();
  assert.equal(parseRetryAfter(new Headers({ "retry-after": past })), 0);
  assert.equal(parseRetryAfter(new Headers({ "retry-after": "soon" })), undefined);
  assert.equal(parseRetryAfter(new Headers()), undefined);
});

Deno.test("apiErrorMessage: OpenAI, Anthropic, Ollama and plain-text shapes", () => {
  assert.equal(apiErrorMessage('{"error":{"message":"bad model","type":"x"}}'), "bad model");
  assert.equal(
    apiErrorMessage('{"type":"error","error":{"type":"api_error","message":"boom"}}'),
    "boom",
  );
  assert.equal(
    apiErrorMessage('{"error":"model \\"llama\\" not found"}'),
    'model "llama" not found',
  );
  assert.equal(apiErrorMessage('{"detail":"Not Found"}'), "Not Found");
  assert.equal(apiErrorMessage("upstream\n  connect error"), "upstream connect error");
  assert.equal(apiErrorMessage(""), undefined);
  assert.equal(apiErrorMessage("x".repeat(500))!.length, 201);
});

Deno.test("HttpClient: a long Retry-After is capped", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 503, headers: { "retry-after": "3600" } });
  const { http, url } = client(server, { maxRetryAfterMs: 20 });
  const started = performance.now();
  await within(5000, http.postJson(url, { model: "m", messages: [] }));
  assert.ok(performance.now() - started < 2000);
  assert.equal(server.requests.length, 2);
});

Deno.test("HttpClient: an abort during the backoff ends the wait at once, without retrying", async () => {
  await using server = await startLlmServer();
  server.setDefault({ status: 500 });
  const { http, url } = client(server, { retryBaseMs: 60_000 });
  const controller = new AbortController();
  const pending = http.postJson(url, {}, { signal: controller.signal });
  await server.waitForRequests(1);
  controller.abort();
  await assertAborted(within(5000, pending));
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient: an abort while waiting for headers is not retried", async () => {
  await using server = await startLlmServer();
  server.setDefault({ hang: true });
  // With no retries left, only the abort check keeps this from reading as a network error.
  const { http, url } = client(server, { maxRetries: 0 });
  const controller = new AbortController();
  const pending = http.postJson(url, {}, { signal: controller.signal });
  await server.waitForRequests(1);
  controller.abort();
  await assertAborted(within(5000, pending));
  await within(5000, server.disconnected());
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient: an already-aborted signal sends nothing and throws its reason", async () => {
  await using server = await startLlmServer();
  const { http, url } = client(server);
  const reason = new Error("caller went away");
  await assert.rejects(http.postJson(url, {}, { signal: AbortSignal.abort(reason) }), (err) => {
    assert.equal(err, reason);
    return true;
  });
  assert.equal(server.requests.length, 0);
});

Deno.test("HttpClient: an abort mid-body rejects the read with the caller's reason", async () => {
  await using server = await startLlmServer();
  server.enqueue({ stallAfter: ["x"] });
  const { http, url } = client(server);
  const controller = new AbortController();
  const reply = await http.postStream(url, { stream: true }, { signal: controller.signal });
  const reader = reply.body.getReader();
  assert.equal((await reader.read()).done, false);
  const reason = new Error("stop");
  controller.abort(reason);
  await assert.rejects(within(5000, reader.read()), (err) => err === reason);
  await within(5000, server.disconnected());
});

Deno.test("HttpClient: secrets echoed by the API are redacted from messages", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 400, body: { error: { message: `key ${KEY} is malformed` } } });
  const { http, url } = client(server);
  const err = await assertFails(http.postJson(url, {}), "provider_unavailable", /\[redacted\]/);
  assert.ok(!err.message.includes(KEY), err.message);
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient: a 200 that is not JSON is provider_unavailable", async () => {
  await using server = await startLlmServer();
  server.enqueue({ status: 200, body: "<html>captive portal</html>" });
  const { http, url } = client(server);
  await assertFails(http.postJson(url, {}), "provider_unavailable", /not JSON: <html>captive/);
});

Deno.test("HttpClient: a body read to the end releases its timers", async () => {
  await using server = await startLlmServer();
  server.enqueue({ text: "done" });
  const { http, url } = client(server, { timeoutMs: 50 });
  const reply = await http.postStream(url, { stream: true });
  const text = await readText(reply.body);
  assert.match(text, /data: \[DONE\]/);
});

import assert from "node:assert/strict";
import { callOk, connectStdio, runEngram, tempDir, toolError } from "../../helpers.ts";
import { rawCallWithProgress } from "./_raw_stdio.ts";
import { type LlmServer, startLlmServer } from "../../fixtures/llm_server.ts";
import { type CallToolResult, CreateMessageRequestSchema } from "../../../src/mcp/sdk.ts";
import { type Client } from "../../../src/mcp/sdk_client.ts";

/** Writes a config with the given providers and returns its path. */
async function writeConfig(dir: string, providers: string, extra = ""): Promise<string> {
  const file = `${dir}/engram.yaml`;
  await Deno.writeTextFile(
    file,
    `providers:\n${providers}\ningest:\n  job_retry_ms: 10\n  allowed_url_hosts: []\n${extra}`,
  );
  return file;
}

function openai(llm: LlmServer, extra = ""): string {
  return `  - type: openai\n    name: fake-openai\n    base_url: ${llm.openaiBaseUrl}\n    model: gpt-test\n    api_key: \${FAKE_KEY}\n    max_retries: 0\n    timeout_ms: 30000\n${extra}`;
}

interface JobView {
  status: string;
  error: string;
  attempts: number;
  result: Record<string, unknown>;
}

/** Hands `content` to memory_extract in session s1 and waits for its extraction job to end. */
async function extractOne(client: Client, content: string): Promise<JobView> {
  const { job_id } = await callOk<{ job_id: string }>(client, "memory_extract", {
    session_id: "s1",
    messages: [{ role: "user", content }],
  });
  return await callOk<JobView>(client, "memory_job", { job_id, wait_ms: 30_000 });
}

/** A model reply holding one fact as JSON. */
function factReply(text: string, subject: string, attribute: string, value: string) {
  return { text: JSON.stringify({ facts: [{ text, subject, attribute, value }] }) };
}

const DEPLOY = {
  path: "/memory/project/deploy.md",
  content:
    "# Deploying\n\nProduction deploys run every Tuesday at 10:00 UTC. Rollbacks use the previous image tag.",
};

Deno.test("memory_ask with an OpenAI-compatible provider streams deltas as progress and cites [n]", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(dir.path, openai(llm));
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    await callOk(s.client, "memory_remember", DEPLOY);
  }
  const deltas = ["Deploys run ", "on Tuesdays ", "at 10:00 UTC [1]."];
  llm.enqueue({ text: deltas.join(""), chunks: deltas });
  // Raw stdio: every notification the server wrote, in order (see rawCallWithProgress).
  const { progress, result: r } = await rawCallWithProgress(dir.path, {
    args: ["--config", config],
    env: { FAKE_KEY: "sk-secret" },
    tool: "memory_ask",
    arguments: { query: "When do deploys run?" },
  });
  assert.ok(!r.isError, JSON.stringify(r.content));
  const out = r.structuredContent as {
    answer: string;
    provider: string;
    citations: { answer_start: number; answer_end: number; quote: string; chunk_id: string }[];
  };
  assert.equal(out.answer, deltas.join(""));
  assert.equal(out.provider, "fake-openai");
  assert.deepEqual(progress.map((p) => p.message), deltas);
  assert.deepEqual(progress.map((p) => p.progress), [0, 1, 2]);
  assert.equal(out.citations.length, 1);
  const c = out.citations[0];
  assert.equal(
    out.answer.slice(c.answer_start, c.answer_end),
    "Deploys run on Tuesdays at 10:00 UTC",
  );
  assert.equal(c.quote, "Production deploys run every Tuesday at 10:00 UTC.");
  const chat = llm.requests.find((q) => q.api !== "embeddings")!;
  assert.equal(chat.headers.authorization, "Bearer sk-secret");
  assert.match(JSON.stringify(chat.body), /\[1\] Deploying/);
});

Deno.test("memory_ask: a stream that dies midway ends with provider_unavailable and no fallback", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(dir.path, openai(llm));
  await using s = await connectStdio(dir.path, {
    args: ["--config", config, "--tier", "write"],
    env: { FAKE_KEY: "sk-test-key" },
  });
  await callOk(s.client, "memory_remember", DEPLOY);
  llm.enqueue({ dieAfter: ["Deploys run ", "on Tues"] });
  const progress: string[] = [];
  const r = await s.client.callTool(
    { name: "memory_ask", arguments: { query: "When do deploys run?" } },
    undefined,
    { onprogress: (p) => void progress.push(p.message ?? "") },
  );
  const e = toolError("memory_ask", r as CallToolResult);
  assert.equal(e.code, "provider_unavailable");
  assert.equal(e.retryable, true);
  assert.match(e.message, /fake-openai.*stopped midway/);
  // The cut can drop the last chunk in flight; what did arrive came in order, and stopped.
  const sent = ["Deploys run ", "on Tues"];
  assert.ok(progress.length >= 1, "deltas before the failure were streamed");
  assert.deepEqual(progress, sent.slice(0, progress.length));
});

Deno.test("memory_ask: a provider down before answering falls through to the extractive engine", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(dir.path, openai(llm));
  await using s = await connectStdio(dir.path, {
    args: ["--config", config, "--tier", "write"],
    env: { FAKE_KEY: "sk-test-key" },
  });
  await callOk(s.client, "memory_remember", DEPLOY);
  llm.enqueue({ status: 503 });
  const out = await callOk<{ answer: string; provider: string; citations: unknown[] }>(
    s.client,
    "memory_ask",
    { query: "When do production deploys run?" },
  );
  assert.equal(out.provider, "extractive");
  assert.match(out.answer, /Tuesday/);
  assert.ok(out.citations.length > 0);
  assert.match(s.stderr(), /provider "fake-openai" failed for answer/);
});

Deno.test("memory_ask: notifications/cancelled stops generation at the provider", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(dir.path, openai(llm));
  await using s = await connectStdio(dir.path, {
    args: ["--config", config, "--tier", "write"],
    env: { FAKE_KEY: "sk-test-key" },
  });
  await callOk(s.client, "memory_remember", DEPLOY);
  llm.enqueue({ stallAfter: ["Deploys "] });
  const controller = new AbortController();
  let first!: () => void;
  const started = new Promise<void>((resolve) => (first = resolve));
  const pending = s.client.callTool(
    { name: "memory_ask", arguments: { query: "When do deploys run?" } },
    undefined,
    { signal: controller.signal, onprogress: () => first() },
  );
  await started;
  controller.abort("user cancelled");
  await assert.rejects(pending);
  await llm.disconnected(1);
  // The session keeps serving.
  const stats = await callOk(s.client, "memory_stats", {});
  assert.ok(stats.documents);
});

Deno.test("extraction with a model: JSON facts kept; malformed JSON retried, then the job fails with the reason", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(dir.path, openai(llm));
  await using s = await connectStdio(dir.path, {
    args: ["--config", config, "--tier", "write"],
    env: { FAKE_KEY: "sk-test-key" },
  });
  llm.enqueue(factReply("The team deploys on Tuesdays.", "team", "deploy day", "Tuesday"));
  const job = await extractOne(s.client, "We deploy on Tuesdays.");
  assert.equal(job.status, "completed");
  assert.equal(job.result.inserted, 1);
  assert.equal(job.result.provider, "fake-openai");
  const chat = llm.requests.at(-1)!;
  assert.deepEqual((chat.body as { response_format: unknown }).response_format, {
    type: "json_object",
  });

  llm.setDefault({ text: "Sure! Here are the facts: none, really." });
  const failed = await extractOne(s.client, "Our staging database is Postgres 16.");
  assert.equal(failed.status, "failed");
  assert.equal(failed.attempts, 3);
  assert.match(failed.error, /provider_unavailable: .*fake-openai.*malformed JSON/);
  // Nothing is lost: the messages stay, and the next extraction covers them.
  llm.setDefault({ text: '{"facts":[]}' });
  llm.enqueue(
    factReply("The staging database is Postgres 16.", "staging", "database", "Postgres 16"),
  );
  const done = await extractOne(s.client, "Thanks.");
  assert.equal(done.result.inserted, 1);
  assert.equal(done.result.messages, 2, "the failed run's message is extracted with the new one");
});

Deno.test("Anthropic provider answers memory_ask with streaming", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(
    dir.path,
    `  - type: anthropic\n    base_url: ${llm.anthropicBaseUrl}\n    model: claude-test\n    api_key: \${ANTHROPIC_TEST_KEY}\n    max_retries: 0\n`,
  );
  {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    await callOk(s.client, "memory_remember", DEPLOY);
  }
  llm.enqueue({ text: "Tuesdays at 10:00 UTC [1].", chunks: ["Tuesdays ", "at 10:00 UTC [1]."] });
  const { progress, result: r } = await rawCallWithProgress(dir.path, {
    args: ["--config", config],
    env: { ANTHROPIC_TEST_KEY: "ak" },
    tool: "memory_ask",
    arguments: { query: "When do deploys run?" },
  });
  const out = r.structuredContent as { answer: string; provider: string; citations: unknown[] };
  assert.equal(out.provider, "anthropic");
  assert.deepEqual(progress.map((p) => p.message), ["Tuesdays ", "at 10:00 UTC [1]."]);
  assert.equal(out.citations.length, 1);
  const req = llm.requests.find((q) => q.path === "/v1/messages")!;
  assert.equal(req.headers["x-api-key"], "ak");
});

Deno.test("MCP sampling: with no provider configured, the client's model answers", async () => {
  await using dir = await tempDir();
  let asked = 0;
  await using s = await connectStdio(dir.path, {
    args: ["--tier", "write"],
    capabilities: { sampling: {} },
    setup: (client) =>
      client.setRequestHandler(CreateMessageRequestSchema, (req) => {
        asked++;
        assert.match(JSON.stringify(req.params.messages), /Question: When do deploys run\?/);
        return {
          role: "assistant",
          model: "client-model",
          content: { type: "text", text: "On Tuesdays [1]." },
        };
      }),
  });
  await callOk(s.client, "memory_remember", DEPLOY);
  const out = await callOk<{ answer: string; provider: string; citations: unknown[] }>(
    s.client,
    "memory_ask",
    { query: "When do deploys run?" },
  );
  assert.equal(asked, 1);
  assert.equal(out.provider, "sampling");
  assert.equal(out.answer, "On Tuesdays [1].");
  assert.equal(out.citations.length, 1);
});

Deno.test("vectors: with an embedding model, chunks are embedded and search fuses both rankings", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = await writeConfig(
    dir.path,
    openai(llm, "    embedding_model: embed-test\n"),
    `mcp:\n  allowed_file_roots: [${JSON.stringify(dir.path)}]\n`,
  );
  await Deno.writeTextFile(`${dir.path}/notes.md`, "# Gardening\n\nTomatoes need full sun.");
  await using s = await connectStdio(dir.path, {
    args: ["--config", config, "--tier", "admin"],
    env: { FAKE_KEY: "sk-test-key" },
  });
  const ingested = await callOk<{ embedded_count: number; chunk_count: number }>(
    s.client,
    "memory_ingest_file",
    { path: `${dir.path}/notes.md` },
  );
  assert.equal(ingested.embedded_count, ingested.chunk_count);
  assert.ok(ingested.embedded_count > 0);
  const found = await callOk<{ hits: { component_scores: Record<string, number> }[] }>(
    s.client,
    "memory_search",
    { query: "tomatoes sun" },
  );
  assert.ok(found.hits[0].component_scores.vector > 0, JSON.stringify(found.hits[0]));
  assert.equal(found.hits[0].component_scores.bm25_rank, 1);

  // The embedding server down: writes still succeed (no vectors), search falls back to text.
  await Deno.writeTextFile(`${dir.path}/more.md`, "# Compost\n\nCompost feeds the tomatoes.");
  llm.failEmbeddings(2);
  const down = await callOk<{ embedded_count: number; chunk_count: number }>(
    s.client,
    "memory_ingest_file",
    { path: `${dir.path}/more.md` },
  );
  assert.equal(down.embedded_count, 0);
  const textOnly = await callOk<
    { hits: { path: string; component_scores: Record<string, number> }[] }
  >(
    s.client,
    "memory_search",
    { query: "compost" },
  );
  assert.equal(textOnly.hits[0].path, `/ingest/${dir.path.split("/").pop()}/more.md`);
  assert.equal(textOnly.hits[0].component_scores.vector, undefined);
  assert.match(s.stderr(), /embedding failed; the document is searchable by text only/);
  const reindex = await callOk<{ embedded: number }>(s.client, "memory_reindex", {});
  assert.ok(reindex.embedded >= 2, `reindex embeds everything re-chunked: ${reindex.embedded}`);
  const fused = await callOk<{ hits: { component_scores: Record<string, number> }[] }>(
    s.client,
    "memory_search",
    { query: "compost" },
  );
  assert.ok(fused.hits[0].component_scores.vector > 0);
});

Deno.test("providers: a literal api_key in the config is refused at start-up", async () => {
  await using dir = await tempDir();
  const config = await writeConfig(
    dir.path,
    "  - type: openai\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key: sk-literal\n",
  );
  const out = await runEngram(["search", "x", "--config", config], { dataDir: dir.path });
  assert.equal(out.code, 2);
  assert.match(out.stderr, /providers\.0\.api_key: write the key as an environment reference/);
  assert.doesNotMatch(out.stderr, /sk-literal/);
});

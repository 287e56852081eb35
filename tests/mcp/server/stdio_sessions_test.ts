import assert from "node:assert/strict";
import { ADMIN, call, callErr, callOk, connectStdio, openService, tempDir } from "../../helpers.ts";
import { queueExtraction } from "../../../src/core/sessions/extraction.ts";
import { appendConversation, openSession } from "../../../src/core/sessions/sessions.ts";
import type { Client } from "../../../src/mcp/sdk_client.ts";
import { rawCallWithProgress } from "./_raw_stdio.ts";

interface Job {
  id: string;
  status: string;
  result: Record<string, unknown> | null;
  error: string | null;
}

interface Doc {
  id: string;
  path: string;
  title: string;
  source: string;
  content?: string;
  metadata: Record<string, unknown>;
}

async function extractAndWait(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ out: Record<string, unknown>; job: Job }> {
  const out = await callOk(client, "memory_extract", args);
  const job = await callOk<Job>(client, "memory_job", { job_id: out.job_id, wait_ms: 30_000 });
  assert.equal(job.status, "completed", `extraction job: ${job.error}`);
  return { out, job };
}

Deno.test("memory_extract (session mode, no model): facts extracted, deduplicated, superseded", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const first = await extractAndWait(s.client, {
    session_id: "chat-1",
    actor_id: "ada",
    messages: [
      { role: "user", content: "Hi! I prefer tabs over spaces." },
      { role: "assistant", content: "Noted, tabs it is." },
    ],
  });
  assert.equal(first.out.mode, "session");
  const messages = first.out.messages as Record<string, unknown>[];
  assert.equal(messages.length, 2);
  for (const m of messages) {
    // SessionMessageRecord: the create-time metadata is not echoed.
    assert.deepEqual(Object.keys(m).sort(), ["content", "created_at", "id", "role", "session_id"]);
    assert.equal(m.session_id, "chat-1");
  }
  assert.equal(first.job.result!.inserted, 1);
  const [factId] = first.job.result!.fact_ids as string[];
  const fact = await callOk<Doc>(s.client, "memory_get", { id: factId });
  assert.equal(fact.source, "extract");
  assert.match(fact.path, /^\/memory\/global\/facts\/.+\.md$/);
  assert.match(fact.title, /tabs/i);

  // The same fact in a new session is a duplicate: no new fact, one more session counted.
  const again = await extractAndWait(s.client, {
    session_id: "chat-2",
    messages: [{ role: "user", content: "As I said, I prefer tabs over spaces." }],
  });
  assert.deepEqual(
    [again.job.result!.inserted, again.job.result!.duplicate, again.job.result!.superseded],
    [0, 1, 0],
  );
  const seen = await callOk<Doc>(s.client, "memory_get", { id: factId });
  assert.equal(seen.metadata.session_count, 2);

  // A contradicting fact supersedes the old one, which is kept, marked and linked.
  const changed = await extractAndWait(s.client, {
    session_id: "chat-2",
    messages: [{ role: "user", content: "I prefer spaces over tabs now." }],
  });
  assert.deepEqual(
    [changed.job.result!.inserted, changed.job.result!.superseded],
    [1, 1],
  );
  const [newId] = changed.job.result!.fact_ids as string[];
  const old = await callOk<Doc>(s.client, "memory_get", { id: factId });
  assert.equal(old.metadata.status, "superseded");
  assert.equal(old.metadata.superseded_by, newId);
  assert.match(old.content!, /Superseded on .* by \[\[/);
  const newer = await callOk<Doc>(s.client, "memory_get", { id: newId });
  assert.equal(newer.metadata.supersedes, factId);
  const links = await callOk<{ items: { document_id: string }[] }>(
    s.client,
    "memory_backlinks",
    { id: newId },
  );
  assert.ok(links.items.some((l) => l.document_id === factId), "old fact links to the new one");
});

Deno.test("memory_extract (transcript mode) stores a transcript document and extracts from it", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const { out, job } = await extractAndWait(s.client, {
    messages: [
      { role: "user", content: "My name is Ada Lovelace." },
      { role: "assistant", content: "Nice to meet you, Ada." },
    ],
  });
  assert.equal(out.mode, "transcript");
  const doc = out.document as Doc;
  assert.match(doc.path, /^\/transcripts\/\d{4}-\d{2}-\d{2}-.+\.md$/);
  assert.equal(doc.metadata.kind, "transcript");
  const full = await callOk<Doc>(s.client, "memory_get", { id: doc.id });
  assert.match(full.content!, /\*\*user:\*\* My name is Ada Lovelace\./);
  assert.equal(job.result!.inserted, 1);
});

Deno.test("memory_extract, memory_reflect, memory_recall, memory_ask: bad input gets clear errors", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const msg = { role: "user", content: "hello" };
  const tooMany = await callErr(s.client, "memory_extract", {
    messages: Array.from({ length: 501 }, () => msg),
  });
  assert.equal(tooMany.code, "invalid_argument");
  assert.match(tooMany.message, /messages/);
  const empty = await callErr(s.client, "memory_extract", {
    messages: [{ role: "user", content: "" }],
  });
  assert.equal(empty.code, "invalid_argument");
  assert.match(empty.message, /empty/);
  const role = await callErr(s.client, "memory_extract", {
    messages: [{ role: "robot", content: "beep" }],
  });
  assert.equal(role.code, "invalid_argument");
  assert.match(role.message, /role/);
  const none = await callErr(s.client, "memory_extract", { messages: [] });
  assert.equal(none.code, "invalid_argument");

  const unknown = await callErr(s.client, "memory_reflect", { session_id: "nope" });
  assert.equal(unknown.code, "not_found");
  assert.match(unknown.message, /session "nope" not found in brain "default"/);
  const recallUnknown = await callErr(s.client, "memory_recall", {
    query: "x",
    session_id: "nope",
  });
  assert.equal(recallUnknown.code, "not_found");

  await callOk(s.client, "memory_extract", { session_id: "done", messages: [msg] });
  await callOk(s.client, "memory_reflect", { session_id: "done" });
  const closed = await callErr(s.client, "memory_extract", {
    session_id: "done",
    messages: [msg],
  });
  assert.equal(closed.code, "conflict");
  assert.match(closed.message, /closed by memory_reflect/);

  const long = await callErr(s.client, "memory_ask", { query: "x".repeat(8193) });
  assert.equal(long.code, "invalid_argument");
  for (const top_k of [0, 51]) {
    const e = await callErr(s.client, "memory_ask", { query: "x", top_k });
    assert.equal(e.code, "invalid_argument", `top_k ${top_k}`);
    const r = await callErr(s.client, "memory_recall", { query: "x", top_k });
    assert.equal(r.code, "invalid_argument", `recall top_k ${top_k}`);
  }
  const tier = await callErr(s.client, "memory_consolidate", {});
  assert.equal(tier.code, "forbidden");
});

Deno.test("memory_recall: the session's recent messages decide between two matching documents", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await callOk(s.client, "memory_remember", {
    path: "/memory/project/alpha.md",
    content: "# Alpha database\n\nProject Alpha keeps its records in a PostgreSQL database.",
  });
  await callOk(s.client, "memory_remember", {
    path: "/memory/project/beta.md",
    content:
      "# Beta storage\n\nThe Beta mobile app syncs offline data; its database is SQLite on the phone.",
  });
  const plain = await callOk<{ hits: Doc[] }>(s.client, "memory_search", { query: "database" });
  assert.equal(plain.hits[0].path, "/memory/project/alpha.md", "plain search prefers alpha");

  await callOk(s.client, "memory_extract", {
    session_id: "mobile",
    messages: [
      { role: "user", content: "The Beta mobile app loses offline data after a sync." },
      { role: "assistant", content: "Let's look at how the phone stores offline data." },
    ],
  });
  const recalled = await callOk<{ chunks: Doc[]; session_terms: string[] }>(
    s.client,
    "memory_recall",
    { query: "database", session_id: "mobile" },
  );
  assert.equal(recalled.chunks[0].path, "/memory/project/beta.md");
  assert.ok(recalled.session_terms.includes("offline"));
  const without = await callOk<{ hits: Doc[] }>(s.client, "memory_recall", { query: "database" });
  assert.equal(without.hits[0].path, "/memory/project/alpha.md", "no session: memory_search");
});

Deno.test("memory_reflect closes the session, records an episode, and is idempotent", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await callOk(s.client, "memory_extract", {
    session_id: "fix-build",
    messages: [
      { role: "user", content: "The build fails with a missing lockfile error." },
      { role: "assistant", content: "Run deno install to create deno.lock, then build again." },
      { role: "user", content: "That fixed it, thanks! Lesson learned: commit the lockfile." },
    ],
  });
  const r = await call(s.client, "memory_reflect", { session_id: "fix-build" });
  assert.ok(!r.isError);
  const out = r.structuredContent as {
    reflection_status: string;
    reflection: { outcome: string; should_record_episode: boolean; path: string };
    reflection_attempted: boolean;
    ended_at: string;
  };
  assert.equal(out.reflection_status, "completed");
  assert.equal(out.reflection_attempted, true);
  assert.equal(out.reflection.outcome, "success");
  assert.equal(out.reflection.should_record_episode, true);
  assert.match(out.reflection.path, /^\/memory\/agent\/episodes\/.+\.md$/);
  assert.ok(!Number.isNaN(Date.parse(out.ended_at)));
  const text = (r.content[0] as { text: string }).text;
  assert.match(text, /outcome: success/);
  assert.match(text, /record episode: yes/);
  assert.match(text, /ended at: /);
  const episode = await callOk<Doc>(s.client, "memory_get", { path: out.reflection.path });
  assert.equal(episode.source, "reflect");

  const twice = await callOk<typeof out>(s.client, "memory_reflect", { session_id: "fix-build" });
  assert.equal(twice.reflection_attempted, false);
  assert.deepEqual(twice.reflection, out.reflection);
  assert.equal(twice.ended_at, out.ended_at);

  await callOk(s.client, "memory_extract", {
    session_id: "empty-ish",
    messages: [{ role: "system", content: "You are helpful." }],
  });
});

Deno.test("memory_ask without a model: extractive answer, real citations, streaming only with a token", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  await callOk(s.client, "memory_remember", {
    path: "/memory/project/deploy.md",
    content:
      "# Deploying\n\nProduction deploys run every Tuesday at 10:00 UTC. The deploy script lives in scripts/deploy.sh. Rollbacks use the previous image tag.",
  });
  await callOk(s.client, "memory_remember", {
    path: "/memory/global/lunch.md",
    content: "# Lunch\n\nThe team eats lunch at noon.",
  });
  // Raw stdio: every notification the server wrote, in order (see rawCallWithProgress).
  const { progress, result } = await rawCallWithProgress(dir.path, {
    tool: "memory_ask",
    arguments: { query: "When do production deploys run?" },
  });
  assert.ok(!result.isError, JSON.stringify(result.content));
  const out = result.structuredContent as {
    answer: string;
    citations: {
      type: string;
      chunk_id: string;
      document_id: string;
      answer_start: number;
      answer_end: number;
      quote: string;
    }[];
    retrieved: { chunk_id: string; document_id: string; score: number; preview: string }[];
  };
  assert.match(out.answer, /Tuesday/);
  assert.ok(out.citations.length >= 1);
  const doc = await callOk<Doc>(s.client, "memory_get", { path: "/memory/project/deploy.md" });
  for (const c of out.citations) {
    assert.equal(c.type, "citation");
    assert.equal(c.document_id, doc.id);
    assert.ok(doc.content!.includes(c.quote), `quote occurs in the chunk: ${c.quote}`);
    assert.ok(
      c.answer_start >= 0 && c.answer_end <= out.answer.length && c.answer_start < c.answer_end,
    );
  }
  for (const r of out.retrieved) {
    assert.deepEqual(Object.keys(r).sort(), ["chunk_id", "document_id", "preview", "score"]);
    assert.ok(r.preview.length <= 512);
  }
  assert.ok(progress.length >= 1, "a token gets progress");
  assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i));
  assert.ok(progress.every((p) => p.total === undefined));
  assert.equal(progress.map((p) => p.message).join(""), out.answer);

  // Without a token: no progress notifications at all.
  const seen: unknown[] = [];
  s.client.setNotificationHandler(
    (await import("../../../src/mcp/sdk.ts")).ProgressNotificationSchema,
    (n) => void seen.push(n),
  );
  const quiet = await callOk<{ answer: string }>(s.client, "memory_ask", {
    query: "When do production deploys run?",
  });
  assert.equal(quiet.answer, out.answer);
  assert.deepEqual(seen, []);

  const nothing = await callOk<{ answer: string; citations: unknown[] }>(
    s.client,
    "memory_ask",
    { query: "zebra quantum xylophone" },
  );
  assert.match(nothing.answer, /nothing/i);
  assert.deepEqual(nothing.citations, []);
});

Deno.test("memory_consolidate: compiles, promotes recurring facts, reports; dry run changes nothing", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "admin"] });
  for (const session of ["one", "two"]) {
    await extractAndWait(s.client, {
      session_id: session,
      messages: [{ role: "user", content: "I prefer dark mode in every editor." }],
    });
  }
  const dry = await callOk<{ result: Record<string, unknown[]> & { dry_run: boolean } }>(
    s.client,
    "memory_consolidate",
    { dry_run: true },
  );
  assert.equal(dry.result.dry_run, true);
  assert.equal(dry.result.promoted.length, 1);
  const before = await callErr(s.client, "memory_get", { path: "/memory/global/facts.md" });
  assert.equal(before.code, "not_found", "a dry run writes nothing");

  const real = await callOk<{ result: Record<string, { path: string; action: string }[]> }>(
    s.client,
    "memory_consolidate",
    {},
  );
  assert.equal(real.result.promoted.length, 1);
  assert.match(real.result.promoted[0].path, /^\/memory\/global\/stable\//);
  assert.ok(
    real.result.summaries.some((d) =>
      d.path === "/memory/global/facts.md" && d.action === "created"
    ),
  );
  const stable = await callOk<Doc>(s.client, "memory_get", { path: real.result.promoted[0].path });
  assert.equal(stable.source, "compile");
  const second = await callOk<{ result: Record<string, { action: string }[]> }>(
    s.client,
    "memory_consolidate",
    {},
  );
  assert.equal(second.result.promoted.length, 0, "promoted once");
  assert.ok(second.result.summaries.every((d) => d.action === "unchanged"));
});

Deno.test("extraction is durable: a job queued by a process that stopped runs in the next one", async () => {
  await using dir = await tempDir();
  let jobId: string;
  {
    // A process queued extraction and stopped before running it.
    using svc = await openService(dir.path);
    const brain = await svc.service.brain(ADMIN);
    const session = await openSession(svc.storage.sessions, brain, {
      sessionId: "crashy",
      caller: ADMIN,
    });
    await appendConversation(svc.storage.sessions, session, {
      messages: [{ role: "user", content: "My name is Grace Hopper." }],
    });
    jobId = (await queueExtraction(svc.storage.jobs, {
      brainId: brain.id,
      sessionId: "crashy",
      scope: "global",
    })).id;
  }
  await using s = await connectStdio(dir.path);
  const job = await callOk<Job>(s.client, "memory_job", { job_id: jobId, wait_ms: 30_000 });
  assert.equal(job.status, "completed", job.error ?? "");
  assert.equal(job.result!.inserted, 1);
  const facts = await callOk<{ hits: Doc[] }>(s.client, "memory_search", { query: "Grace" });
  assert.match(facts.hits[0].path, /^\/memory\/global\/facts\//);
});

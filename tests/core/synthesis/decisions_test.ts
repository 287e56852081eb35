/** @module Decisions found in notes by rule, each with a citation quoted verbatim from its chunk. */
import assert from "node:assert/strict";
import { decisions } from "../../../src/core/synthesis/decisions.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { DecisionsInput } from "../../../src/core/synthesis/synthesis_schemas.ts";
import { OpenAiProvider } from "../../../src/providers/openai.ts";
import { ModelStack } from "../../../src/providers/stack.ts";
import { startLlmServer } from "../../fixtures/llm_server.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

const rules = new ModelStack([], { logger: silentLogger });
const args = (o: Record<string, unknown> = {}) => DecisionsInput.parse(o);

Deno.test("decisions by rule: every document, cited by the chunk that holds each; topic filter", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    path: "/memory/project/daily.md",
    content: [
      "# Daily notes",
      "",
      "## 2024-04-02",
      "Talked to Carol: we're going with Papa Parse instead of our own parser, because quoted newlines are hard.",
      "We need to decide on the upload limit.",
      "",
      "## 2024-04-05",
      "Decided: the importer ships behind a flag next week.",
    ].join("\n"),
  });
  await s.service.remember(ADMIN, {
    path: "/memory/project/ops.md",
    content: "# Ops\n\nThe eviction policy is allkeys-lru, agreed in the postmortem.\n",
  });
  const deps = { service: s.service, model: rules };
  const all = await decisions(deps, ADMIN, args());
  assert.equal(all.provider, "extractive");
  const byStatement = new Map(all.decisions.map((d) => [d.statement, d]));
  assert.deepEqual([...byStatement.keys()].sort(), [
    "Talked to Carol: we're going with Papa Parse instead of our own parser",
    "The eviction policy is allkeys-lru, agreed in the postmortem.",
    "the importer ships behind a flag next week.",
  ]);
  const papa = byStatement.get(
    "Talked to Carol: we're going with Papa Parse instead of our own parser",
  )!;
  assert.equal(papa.rationale, "quoted newlines are hard");
  assert.equal(papa.when, "2024-04-02");
  assert.ok(papa.citation.chunk_id.length > 0, "cited by a chunk");
  const chunk = await s.service.searchHits({
    brainId: all.brain_id,
    text: "Papa Parse",
    topK: 5,
    scope: "all",
    sort: "relevance",
    group: "chunk",
  });
  const cited = chunk.find((h) => h.chunk_id === papa.citation.chunk_id)!;
  assert.ok(cited.content.includes(papa.citation.quote), "the quote is in the cited chunk");
  assert.equal(byStatement.get("the importer ships behind a flag next week.")!.when, "2024-04-05");

  const parser = await decisions(deps, ADMIN, args({ query: "parser" }));
  assert.deepEqual(parser.decisions.map((d) => d.citation.path), ["/memory/project/daily.md"]);
  assert.match(parser.decisions[0].statement, /Papa Parse/);

  const none = await decisions(deps, ADMIN, args({ query: "kubernetes" }));
  assert.deepEqual(none.decisions, []);
  assert.match(
    none.note!,
    /no decision about "kubernetes" found in brain "default"; try other words/,
  );
  const later = await decisions(deps, ADMIN, args({ since: "2999-01-01" }));
  assert.deepEqual(later.decisions, []);
});

Deno.test("decisions by rule: cited by the very chunk holding the quote, among many like it", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  // Sections that hold the decision's words more often than the decision itself: a search for
  // the quote ranks them first, so only reading the document's chunks finds the right one.
  const decoy = "Was it decided that the importer flag ships behind? " +
    "The importer flag ships behind schedule.";
  const sections = Array.from({ length: 14 }, (_, i) => `## Part ${i + 1}\n${decoy}\n`);
  const doc = await s.service.remember(ADMIN, {
    path: "/memory/project/importer.md",
    content: `# Importer\n\n${sections.join("\n")}\n## Outcome\n` +
      "Decided: the importer ships behind a flag.\n",
  });
  const found = await decisions({ service: s.service, model: rules }, ADMIN, args());
  assert.deepEqual(found.decisions.map((d) => d.statement), [
    "the importer ships behind a flag.",
  ]);
  const [d] = found.decisions;
  const brain = await s.service.brain(ADMIN);
  const chunks = await s.service.chunksOf(brain, doc.id);
  assert.ok(chunks.length > 10, "more chunks hold the words than a citing search returns");
  const cited = chunks.find((c) => c.id === d.citation.chunk_id);
  assert.ok(cited, "cited by a chunk of the document");
  assert.ok(
    cited.text.includes(d.citation.quote),
    `the cited chunk holds the quote: ${cited.text}`,
  );
  assert.deepEqual(
    await s.service.chunksOf(
      await s.service.createBrain({ name: "Other", visibility: "private" }),
      doc.id,
    ),
    [],
    "another brain's document has no chunks there",
  );
});

Deno.test("decisions: a statement repeating an earlier one is dropped; wordless ones are kept", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    path: "/memory/project/sync.md",
    content: "# Sync\n\nAgreed: the upgrade to Postgres 16 happens on Sunday.\n",
  });
  const model = new OpenAiProvider({
    name: "fake-openai",
    baseUrl: llm.openaiBaseUrl,
    model: "gpt-test",
    apiKey: "sk-test",
    maxRetries: 0,
    retryBaseMs: 1,
  });
  const decision = (statement: string) => ({ statement, source: 1, quote: "" });
  llm.enqueue({
    text: JSON.stringify({
      decisions: [
        decision("The upgrade to Postgres 16 happens on Sunday."),
        decision("Postgres 16 upgrade on Sunday."),
        decision("Yes."),
        decision("Yes."),
        decision("Backups move to the new bucket."),
      ],
    }),
  });
  const found = await decisions(
    { service: s.service, model: new ModelStack([model], { logger: silentLogger }) },
    ADMIN,
    args({ query: "postgres" }),
  );
  assert.equal(found.provider, "fake-openai");
  assert.deepEqual(found.decisions.map((d) => d.statement), [
    "The upgrade to Postgres 16 happens on Sunday.",
    "Yes.",
    "Yes.",
    "Backups move to the new bucket.",
  ]);
});

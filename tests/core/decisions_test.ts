/** @module Decisions found in notes by rule, each with a citation quoted verbatim from its chunk. */
import assert from "node:assert/strict";
import { decisions } from "../../src/core/decisions.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { DecisionsInput } from "../../src/core/synthesis_schemas.ts";
import { ModelStack } from "../../src/providers/stack.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

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

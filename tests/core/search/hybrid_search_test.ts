/** @module Hybrid search: the query is embedded once per search, however often it widens. */
import assert from "node:assert/strict";
import type { Logger } from "../../../src/core/logger.ts";
import { MemoryService } from "../../../src/core/memory_service.ts";
import type { Embedder } from "../../../src/core/ports/language_model.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

/** An embedder counting the query embeddings asked of it (after `searching` is set). */
function probe(o: { failQueries?: boolean } = {}) {
  const state = { searching: false, queries: 0 };
  const embedder: Embedder = {
    name: "probe",
    model: "probe-1",
    embed: (texts) => {
      if (state.searching) {
        state.queries++;
        if (o.failQueries) return Promise.reject(new Error("embedding server down"));
      }
      return Promise.resolve(texts.map(() => new Float32Array([1, 0, 0])));
    },
  };
  return { embedder, state };
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (m) => void warnings.push(m) };
}

/** One document whose every section matches: a grouped search for two documents must widen. */
/** "alpha ledger", the two best documents of the default brain. */
async function ledgerSearch(service: MemoryService) {
  const brain = await service.brain(ADMIN);
  return await service.searchHits({
    brainId: brain.id,
    text: "alpha ledger",
    topK: 2,
    scope: "all",
    sort: "relevance",
  });
}

async function longNote(service: MemoryService): Promise<void> {
  const sections = Array.from({ length: 12 }, (_, i) => `## Part ${i + 1}\nThe alpha ledger.\n`);
  await service.remember(ADMIN, {
    path: "/memory/project/ledger.md",
    content: `# Ledger\n\n${sections.join("\n")}`,
  });
}

Deno.test("hybrid search: a grouped search that widens embeds the query once", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const { embedder, state } = probe();
  const service = new MemoryService(s.storage, { embedder });
  await longNote(service);
  state.searching = true;
  const hits = await ledgerSearch(service);
  assert.deepEqual(hits.map((h) => h.path), ["/memory/project/ledger.md"]);
  assert.ok(hits[0].component_scores?.vector !== undefined, "the vector ranking took part");
  assert.equal(state.queries, 1);
});

Deno.test("hybrid search: a failing query embedding warns once and ranks by full text", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const { embedder, state } = probe({ failQueries: true });
  const logger = recordingLogger();
  const service = new MemoryService(s.storage, { embedder, logger });
  await longNote(service);
  state.searching = true;
  const hits = await ledgerSearch(service);
  assert.deepEqual(hits.map((h) => h.path), ["/memory/project/ledger.md"]);
  assert.equal(hits[0].component_scores?.vector, undefined, "no vector ranking");
  assert.equal(state.queries, 1);
  assert.deepEqual(logger.warnings, ["query embedding failed; full-text ranking only"]);
});

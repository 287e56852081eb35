/**
 * @module The SearchIndex contract, continued: how a backend ranks a question (issue 17). The
 * rules live in core (query_plan.ts, search_ranking.ts); a backend must apply them: function words
 * are not searched, a chunk holding more of the query's words ranks first, quoted text is
 * required, and a name of the query in a chunk's title counts.
 */
import assert from "node:assert/strict";
import type { SearchQuery } from "../../../src/core/types.ts";
import { type ContractBackend, searchQuery, withBrain, writeDoc } from "./backend.ts";

/** Registers the ranking cases for `backend` (part of searchIndexContract). */
export function indexRankingCases(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} SearchIndex: ${name}`, fn);

  const paths = async (
    f: { storage: { search: { search(q: SearchQuery): Promise<{ path: string }[]> } } },
    q: SearchQuery,
  ) => (await f.storage.search.search(q)).map((h) => h.path);

  test("a question's function words are not searched", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/chat.md", ["What did she do with it?"]);
    await writeDoc(f.storage.documents, f.brain.id, "/k.md", ["The kayak is in the shed."]);
    assert.deepEqual(await paths(f, searchQuery(f.brain.id, "What did she do with the kayak?")), [
      "/k.md",
    ]);
  });

  test("a chunk holding more of the query's words ranks above one repeating one of them", async () => {
    await using f = await withBrain(backend);
    for (let i = 0; i < 20; i++) {
      await writeDoc(f.storage.documents, f.brain.id, `/f${i}.md`, [`unrelated note ${i}`]);
    }
    const filler = Array.from({ length: 250 }, (_, i) => `w${i}`).join(" ");
    await writeDoc(f.storage.documents, f.brain.id, "/one.md", ["kayak kayak kayak"]);
    await writeDoc(f.storage.documents, f.brain.id, "/all.md", [`${filler} kayak lake paddle`]);
    await writeDoc(f.storage.documents, f.brain.id, "/lake.md", ["lake"]);
    const found = await paths(f, searchQuery(f.brain.id, "kayak paddle lake"));
    assert.equal(found[0], "/all.md");
    assert.deepEqual(found.slice(1).sort(), ["/lake.md", "/one.md"]);
  });

  test("quoted text is required; the other words only rank", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/a.md", ["new york bagels"]);
    await writeDoc(f.storage.documents, f.brain.id, "/b.md", ["new york pizza"]);
    await writeDoc(f.storage.documents, f.brain.id, "/c.md", ["pizza in york, new oven"]);
    assert.deepEqual(await paths(f, searchQuery(f.brain.id, '"new york" pizza')), [
      "/b.md",
      "/a.md",
    ]);
  });

  test("a name of the query in a chunk's title adds to its score", async () => {
    await using f = await withBrain(backend);
    await writeDoc(f.storage.documents, f.brain.id, "/m.md", ["likes to paint"], {
      title: "Melanie",
    });
    await writeDoc(f.storage.documents, f.brain.id, "/n.md", ["Melanie will paint"], {
      title: "Notes",
    });
    const [first] = await f.storage.search.search(
      searchQuery(f.brain.id, "What did Melanie paint?"),
    );
    assert.equal(first.path, "/m.md");
    assert.equal(first.component_scores?.name, 2);
  });
}

/**
 * @module The PostgreSQL full-text index beyond the contract suite: query syntax of PostgreSQL's own
 * (tsquery, websearch) is never read from user text, the `engram` configuration folds accents
 * and cuts words as SQLite's unicode61 does, prefix search, typo correction from the word list,
 * and the word list's counts.
 */
import assert from "node:assert/strict";
import type { SearchHit } from "../../../src/core/types.ts";
import { searchQuery, writeDoc } from "../contracts/backend.ts";
import { startCluster } from "./_cluster.ts";
import { oneNode } from "./_storage.ts";

const paths = (hits: SearchHit[]) => hits.map((h) => h.path).sort();

/** Text that is syntax to `to_tsquery`, `websearch_to_tsquery` or a careless SQL string. */
const PG_HOSTILE = [
  "kayak & paddle",
  "kayak | zzz",
  "!kayak",
  "!!kayak",
  "kayak & !paddle",
  "kayak <-> paddle",
  "kayak <2> paddle",
  "kayak <-",
  "kayak:*",
  "kayak:A",
  "kayak:AB*",
  "'kayak'",
  "''",
  "'kayak paddle'",
  "kayak' | 'zzz",
  "kayak or -paddle",
  '"kayak" -paddle',
  "\\'kayak",
  "kayak\\",
  "E'\\x27kayak'",
  "$1 kayak $$",
  "kayak::tsquery",
  "'); SELECT pg_sleep(10); --",
  "kayak\u0000paddle",
  "(kayak | (paddle & lake",
  "k".repeat(3000),
  `kayak ${"x".repeat(5000)} paddle`,
  Array.from({ length: 400 }, (_, i) => `w${i}`).join(" | "),
];

const cluster = await startCluster();

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("postgres search: tsquery and websearch syntax in user text is never syntax", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/k.md", ["kayak paddle lake trip"]);
    await writeDoc(docs, n.brain.id, "/o.md", ["only a paddle here"]);
    for (const text of PG_HOSTILE) {
      for (const sort of ["relevance", "recency"] as const) {
        try {
          await n.storage.search.search(searchQuery(n.brain.id, text, { sort }));
        } catch (err) {
          throw new Error(`search for ${JSON.stringify(text.slice(0, 60))} failed: ${err}`);
        }
      }
    }
    const find = async (text: string) =>
      paths(await n.storage.search.search(searchQuery(n.brain.id, text)));
    // `!` is no negation and `&` no conjunction: both documents hold "paddle", so both are found.
    assert.deepEqual(await find("kayak & !paddle"), ["/k.md", "/o.md"]);
    assert.deepEqual(await find("!paddle"), ["/k.md", "/o.md"]);
    // `:A` is no weight filter and `:*` no prefix: "kayak" is a word like any other.
    assert.deepEqual(await find("kayak :A"), ["/k.md"]);
    assert.deepEqual(await find("kayak:*"), ["/k.md"]);
    // websearch's `-` excludes nothing.
    assert.deepEqual(await find("kayak -paddle"), ["/k.md", "/o.md"]);
    // A quote is no string delimiter for the server: the words around it are searched.
    assert.deepEqual(await find("'); SELECT pg_sleep(10); -- kayak"), ["/k.md"]);
  });

  Deno.test("postgres search: accents are folded both ways, and highlights keep the text's", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/cafe.md", ["Notes from the Café Crème résumé workshop"]);
    await writeDoc(docs, n.brain.id, "/naive.md", ["a naive plan"]);
    const find = async (text: string) =>
      paths(await n.storage.search.search(searchQuery(n.brain.id, text)));
    assert.deepEqual(await find("cafe"), ["/cafe.md"]);
    assert.deepEqual(await find("CAFÉ"), ["/cafe.md"]);
    assert.deepEqual(await find("resume creme"), ["/cafe.md"]);
    assert.deepEqual(await find("naïve"), ["/naive.md"]);
    assert.deepEqual(await find('"café crème"'), ["/cafe.md"]);
    const [hit] = await n.storage.search.search(searchQuery(n.brain.id, "cafe"));
    assert.ok(hit.highlights.some((h) => h.includes("**Café**")), hit.highlights.join(" | "));
  });

  Deno.test("postgres search: words are cut at punctuation as unicode61 cuts them, and stemmed", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/mail.md", [
      "Write to ops@example.com about the self-hosted v3.14 build at example.org/path_name",
    ]);
    await writeDoc(docs, n.brain.id, "/run.md", ["She was running every morning"]);
    const find = async (text: string) =>
      paths(await n.storage.search.search(searchQuery(n.brain.id, text)));
    for (const word of ["ops", "example", "hosted", "self", "14", "path", "name", "org"]) {
      assert.deepEqual(await find(word), ["/mail.md"], word);
    }
    assert.deepEqual(await find('"self hosted"'), ["/mail.md"]);
    assert.deepEqual(await find("runs"), ["/run.md"], "stemmed alike");
    // No stop list: a query of function words alone is searched, as on SQLite.
    assert.deepEqual(await find("was every"), ["/run.md"]);
  });

  Deno.test("postgres search: a prefix widens to whole words of the word list", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/log.md", ["I was running every morning in the park."]);
    await writeDoc(docs, n.brain.id, "/cafe.md", ["Coffee at a Café in Paris."]);
    await writeDoc(docs, n.brain.id, "/pliant.md", ["The pliant rules."]);
    await writeDoc(docs, n.brain.id, "/plisse.md", ["A plisse skirt."]);
    const find = async (text: string) =>
      paths(await n.storage.search.search(searchQuery(n.brain.id, text)));
    assert.deepEqual(await find("runn*"), ["/log.md"]);
    assert.deepEqual(await find("RUNNI*"), ["/log.md"]);
    assert.deepEqual(await find("caf*"), ["/cafe.md"]);
    assert.deepEqual(await find("café*"), ["/cafe.md"]);
    assert.deepEqual(await find("plis*"), ["/plisse.md"], "not pliant, whose stem is pli");
    assert.deepEqual(await find("pli*"), ["/pliant.md", "/plisse.md"]);
    assert.deepEqual(await find("runx*"), []);
    const [hit] = await n.storage.search.search(searchQuery(n.brain.id, "runn*"));
    assert.ok(hit.highlights.some((h) => h.includes("**running**")), hit.highlights.join(" | "));
  });

  Deno.test("postgres search: a mistyped word is read as the nearest word the index holds", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/f.md", ["The fundraiser planning meeting"]);
    const find = async (text: string) =>
      paths(await n.storage.search.search(searchQuery(n.brain.id, text)));
    // Written a moment ago: the word list is brought up to date before it is read.
    assert.deepEqual(await find("funraiser"), ["/f.md"], "one letter missing");
    assert.deepEqual(await find("fundriaser"), ["/f.md"], "two letters swapped");
    assert.deepEqual(await find("plannign meetign"), ["/f.md"]);
    assert.deepEqual(await find("meetx"), [], "a word of five letters may have one typo: meetx");
    assert.deepEqual(await find("fnudraiser"), [], "the first three letters must be right");
    assert.deepEqual(await find('"funraiser"'), [], "quoted text is searched as typed");
    assert.deepEqual(await find("mtg"), [], "short words are never corrected");
  });

  Deno.test("postgres search: the most frequent of the nearest words wins; a forgotten word goes", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/a.md", ["parsed"]);
    await writeDoc(docs, n.brain.id, "/b.md", ["parser"]);
    await writeDoc(docs, n.brain.id, "/c.md", ["parser again"]);
    const find = async (text: string) =>
      paths(await n.storage.search.search(searchQuery(n.brain.id, text)));
    // "parsex" is one typo from both: the word in more chunks is taken.
    assert.deepEqual(await find("parsex"), ["/b.md", "/c.md"]);
    for (const path of ["/b.md", "/c.md"]) {
      const doc = await docs.findDocument(n.brain.id, { path });
      await docs.markDeleted(n.brain.id, doc!.id, "2030-01-02T00:00:00.000Z");
    }
    assert.deepEqual(await find("parsex"), ["/a.md"], "parser is no longer in the index");
    const [{ docs: count }] = await n.storage.connection.pool<{ docs: number }[]>`
      SELECT coalesce((SELECT docs FROM search_words WHERE word = 'parser'), 0) AS docs`;
    assert.equal(count, 0);
  });

  Deno.test("postgres search: the word list counts chunks per word, whoever writes", async () => {
    await using n = await oneNode(cluster);
    const docs = n.storage.documents;
    await writeDoc(docs, n.brain.id, "/a.md", ["heron heron egret", "heron"], { title: "Birds" });
    await writeDoc(docs, n.brain.id, "/b.md", ["egret"], { title: "More" });
    await n.storage.search.replaceIndex(
      (await docs.findDocument(n.brain.id, { path: "/b.md" }))!.id,
      [{
        ordinal: 0,
        heading_path: ["Wading"],
        body: "egret ibis",
        start_offset: 0,
        end_offset: 10,
      }],
      [],
    );
    // A search that reads the list (a prefix) drains it first.
    await n.storage.search.search(searchQuery(n.brain.id, "her*"));
    const rows = await n.storage.connection.pool<{ word: string; docs: number }[]>`
      SELECT word, docs FROM search_words ORDER BY word`;
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.word, r.docs])), {
      birds: 2,
      egret: 2,
      heron: 2,
      ibis: 1,
      more: 1,
      wading: 1,
    });
    const [{ queued }] = await n.storage.connection.pool<{ queued: number }[]>`
      SELECT count(*)::int AS queued FROM search_word_changes`;
    assert.equal(queued, 0);
  });
}

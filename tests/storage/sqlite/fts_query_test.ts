import assert from "node:assert/strict";
import { MAX_SEARCHED_TERMS } from "../../../src/core/search/query_plan.ts";
import {
  anyOf,
  ftsExpression,
  ftsTerms,
  ftsWord,
} from "../../../src/storage/sqlite/search/fts_query.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

Deno.test("ftsTerms: every word becomes a double-quoted FTS5 string", () => {
  assert.deepEqual(ftsTerms("running shoes"), ['"running"', '"shoes"']);
  assert.deepEqual(ftsTerms("  spaced\t\nout  "), ['"spaced"', '"out"']);
});

Deno.test("ftsTerms: FTS5 operators and column filters are plain words", () => {
  assert.deepEqual(ftsTerms("a AND b OR NOT c"), [
    '"a"',
    '"AND"',
    '"b"',
    '"OR"',
    '"NOT"',
    '"c"',
  ]);
  assert.deepEqual(ftsTerms("title:secret"), ['"title secret"']);
  assert.deepEqual(ftsTerms("NEAR(a b)"), ['"NEAR a"', '"b"']);
  assert.deepEqual(ftsTerms("^start -minus +plus"), ['"start"', '"minus"', '"plus"']);
});

Deno.test("ftsTerms: a trailing * on one word is a prefix; elsewhere it is dropped", () => {
  assert.deepEqual(ftsTerms("runn*"), ['"runn"*']);
  assert.deepEqual(ftsTerms("*lead mid*dle"), ['"lead"', '"mid dle"']);
  assert.deepEqual(ftsTerms("two-word*"), ['"two word"'], "a multi-word prefix is a phrase");
  assert.deepEqual(ftsTerms("* ** ***"), []);
});

Deno.test("ftsTerms: a double-quoted span stays one phrase; an unbalanced quote is plain text", () => {
  assert.deepEqual(ftsTerms('"new york" pizza'), ['"new york"', '"pizza"']);
  assert.deepEqual(ftsTerms('"unbalanced words'), ['"unbalanced"', '"words"']);
  assert.deepEqual(ftsTerms('a "b c" "d'), ['"a"', '"b c"', '"d"']);
  assert.deepEqual(ftsTerms('"'), []);
  assert.deepEqual(ftsTerms('""'), []);
  assert.deepEqual(ftsTerms('"runn*"'), ['"runn"'], "no prefix inside a phrase");
});

Deno.test("ftsTerms: letters of any script and combining marks are words; symbols are not", () => {
  assert.deepEqual(ftsTerms("café naïve"), ['"café"', '"naïve"']);
  assert.deepEqual(ftsTerms("東京 タワー"), ['"東京"', '"タワー"']);
  assert.deepEqual(ftsTerms("cafe\u0301"), ['"cafe\u0301"']);
  assert.deepEqual(ftsTerms("🎉🔥 :) ( ))) '; --"), []);
  assert.deepEqual(ftsTerms("a\0b"), ['"a b"']);
});

Deno.test("ftsTerms: at most MAX_SEARCHED_TERMS terms are kept", () => {
  const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
  const terms = ftsTerms(many);
  assert.equal(terms.length, MAX_SEARCHED_TERMS);
  assert.equal(terms[0], '"w0"');
  assert.equal(terms.at(-1), `"w${MAX_SEARCHED_TERMS - 1}"`);
});

Deno.test("ftsExpression: all terms with AND, any term with OR, null when empty", () => {
  assert.equal(ftsExpression(['"a"', '"b c"'], "and"), '"a" AND "b c"');
  assert.equal(ftsExpression(['"a"', '"b"*'], "or"), '"a" OR "b"*');
  assert.equal(ftsExpression([], "and"), null);
});

Deno.test("anyOf: whole words as one FTS5 group, quotes escaped; null when there are none", () => {
  assert.equal(anyOf(["running", "runner"].map(ftsWord)), '("running" OR "runner")');
  assert.equal(anyOf([ftsWord('a"b')]), '"a""b"', "one word alone; quotes are escaped");
  assert.equal(anyOf([]), null);
});

const NASTY_QUERIES = [
  '"',
  '""',
  '"unbalanced',
  '"""',
  "AND",
  "OR",
  "NOT",
  "OR NOT",
  "a AND",
  "AND OR NOT",
  "*",
  "**",
  "foo*",
  "*foo",
  "title:secret",
  "{title body}:secret",
  ":",
  "(",
  ")))",
  "((a)",
  "NEAR(a b)",
  "NEAR/2",
  "a NEAR/3 b",
  "^start",
  "-minus",
  "+plus",
  "🎉🔥",
  "café naïve",
  "東京",
  "!@#$%^&*()_+-=[]{}|;':\",./<>?`~".repeat(2),
  ",.;:!?-_/\\|()[]{}<>'\"`~@#$%^&*+=".repeat(130).slice(0, 4096),
  "'; DROP TABLE documents; --",
  "a\0b",
  "\u0301",
  "x".repeat(4096),
  Array.from({ length: 500 }, (_, i) => `w${i}*`).join(" "),
];

Deno.test("search: no user text causes an FTS syntax error", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Secret title\n\nThe secret launch code is hidden. Label title: secret. Start here.",
  });
  await s.service.remember(ADMIN, {
    content: "# Café naïve\n\nA naïve café order in 東京 🎉, with minus and plus signs.",
  });
  await s.service.remember(ADMIN, {
    content: "# Drop table\n\nNever DROP TABLE documents; keep the tables.",
  });
  for (const query of NASTY_QUERIES) {
    for (const sort of ["relevance", "recency", "relevance_then_recency"] as const) {
      let result;
      try {
        result = await s.service.search(ADMIN, { query, top_k: 10, scope: "all", sort });
      } catch (err) {
        assert.fail(`query ${JSON.stringify(query.slice(0, 60))} threw: ${err}`);
      }
      assert.ok(Array.isArray(result.hits));
      assert.equal(result.query, query);
      for (const h of result.hits) assert.ok(h.score > 0, `score of ${JSON.stringify(query)}`);
    }
  }
  assert.equal((await s.service.stats(ADMIN, {})).documents, 3, "nothing was dropped");
});

Deno.test("search: nasty queries match their words literally", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Secret title\n\nThe secret launch code is hidden. Label title: secret. Start here.",
  });
  await s.service.remember(ADMIN, {
    content: "# Café naïve\n\nA naïve café order in 東京 🎉, with minus and plus signs.",
  });
  await s.service.remember(ADMIN, {
    content: "# Drop table\n\nNever DROP TABLE documents; keep the tables.",
  });
  const titles = async (query: string) =>
    (await s.service.search(ADMIN, { query, top_k: 10, scope: "all", sort: "relevance" })).hits
      .map((h) => h.title).sort();
  const cases: [string, string[]][] = [
    ['"', []],
    ['""', []],
    ['"unbalanced', []],
    ['"secret', ["Secret title"]],
    ["*", []],
    ["**", []],
    ["foo*", []],
    ["secr*", ["Secret title"]],
    // Words joined by punctuation are a phrase, as the tokenizer indexed them.
    ["title:secret", ["Secret title"]],
    ["launch:title", []],
    [":", []],
    ["(", []],
    [")))", []],
    ["^start", ["Secret title"]],
    ["-minus", ["Café naïve"]],
    ["+plus", ["Café naïve"]],
    ["🎉🔥", []],
    ["café naïve", ["Café naïve"]],
    ["cafe naive", ["Café naïve"]],
    ["東京", ["Café naïve"]],
    ["'; DROP TABLE documents; --", ["Drop table"]],
    ["AND", ["Café naïve"]],
    ["OR NOT", []],
    // Only a combining mark: it folds to nothing and must not widen to arbitrary words.
    ["\u0301*", []],
  ];
  for (const [query, expected] of cases) {
    assert.deepEqual(await titles(query), expected, `query ${JSON.stringify(query)}`);
  }
});

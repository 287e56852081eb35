import assert from "node:assert/strict";
import { MAX_SEARCHED_TERMS } from "../../src/core/query_plan.ts";
import { anyOf, ftsExpression, ftsTerms, ftsWord } from "../../src/storage/fts_query.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

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

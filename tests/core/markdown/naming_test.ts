import assert from "node:assert/strict";
import { EngramError } from "../../../src/core/errors.ts";
import { LIMITS, SLUG_PATTERN } from "../../../src/core/limits.ts";
import {
  brainSlug,
  derivePath,
  deriveTitle,
  normalizePath,
  slugify,
} from "../../../src/core/markdown/naming.ts";

function assertInvalid(fn: () => unknown, message: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected EngramError, got ${err}`);
    assert.equal(err.code, "invalid_argument");
    assert.match(err.message, message);
    return true;
  });
}

Deno.test("deriveTitle: the first heading wins, at any level, even after other lines", () => {
  assert.equal(deriveTitle("# Running plan\n\nbody"), "Running plan");
  assert.equal(deriveTitle("intro line\n\n### Deep heading ###\n"), "Deep heading");
});

Deno.test("deriveTitle: without a heading, the first non-empty line with its marker stripped", () => {
  assert.equal(deriveTitle("\n\n  Buy milk tomorrow\nsecond"), "Buy milk tomorrow");
  assert.equal(deriveTitle("- list item first\n- second"), "list item first");
  assert.equal(deriveTitle("* star item"), "star item");
  assert.equal(deriveTitle("+ plus item"), "plus item");
  assert.equal(deriveTitle("> quoted wisdom"), "quoted wisdom");
  assert.equal(deriveTitle("1. numbered"), "numbered");
  assert.equal(deriveTitle("2) paren numbered"), "paren numbered");
});

Deno.test("deriveTitle: a heading inside a code fence is not the title", () => {
  assert.equal(deriveTitle("```\n# comment\n```\n# Real"), "Real");
});

Deno.test("deriveTitle: front matter is skipped", () => {
  assert.equal(deriveTitle("---\ntitle: ignored\n---\nFirst body line\n"), "First body line");
  assert.equal(deriveTitle("---\n# not a heading\n---\n## The heading\n"), "The heading");
});

Deno.test("deriveTitle: a broken front matter block is skipped; a rule or an unclosed block's --- is not the title", () => {
  assert.equal(deriveTitle("---\ntitle: Plan\ntags: [a, b\n---\n# Heading\nbody\n"), "Heading");
  assert.equal(deriveTitle("---\ntags: [a, b\n---\nFirst body line\n"), "First body line");
  assert.equal(deriveTitle("---\ntitle: x\nbody"), "title: x");
  assert.equal(deriveTitle("* * *\n___\nAfter the rules"), "After the rules");
});

Deno.test("deriveTitle: whitespace is collapsed, and empty content is Untitled", () => {
  assert.equal(deriveTitle("#   Many    spaces\there  "), "Many spaces here");
  assert.equal(deriveTitle("   \n\t\n"), "Untitled");
  assert.equal(deriveTitle("---\na: 1\n---\n"), "Untitled");
});

Deno.test("deriveTitle: a long first line is cut to 512 characters ending in an ellipsis", () => {
  const title = deriveTitle("x".repeat(2000));
  assert.equal(title.length, LIMITS.titleChars);
  assert.equal(title, "x".repeat(511) + "…");
  assert.equal(deriveTitle("y".repeat(512)), "y".repeat(512), "exactly 512 is kept whole");
});

Deno.test("deriveTitle: a title of emoji is cut within 512 UTF-16 units without splitting a pair", () => {
  const title = deriveTitle("🎉".repeat(600));
  assert.ok(title.length <= LIMITS.titleChars, `length ${title.length}`);
  assert.equal(title, "🎉".repeat(255) + "…");
  assert.ok(title.isWellFormed());
});

Deno.test("slugify: lowercases, hyphenates and keeps letters of any script", () => {
  assert.equal(slugify("Running Plan: 2024!"), "running-plan-2024");
  assert.equal(slugify("Café naïve"), "café-naïve");
  assert.equal(slugify("東京 の 旅"), "東京-の-旅");
  assert.equal(slugify("  --Hello__World--  "), "hello-world");
  assert.equal(slugify("🎉🔥"), "");
  assert.equal(slugify("ｆｕｌｌｗｉｄｔｈ"), "fullwidth", "NFKC folds compatibility forms");
});

Deno.test("slugify: the slug is cut to the limit without a trailing hyphen", () => {
  const slug = slugify("word ".repeat(50), 12);
  assert.equal(slug, "word-word-wo");
  assert.equal(slugify("abcdefghij k", 11), "abcdefghij");
});

Deno.test("derivePath: a titled note goes to the global scope", () => {
  assert.equal(derivePath("Running Plan"), "/memory/global/running-plan.md");
  assert.equal(derivePath("🎉"), "/memory/global/untitled.md");
});

Deno.test("brainSlug: ASCII only, diacritics folded, matching the slug pattern", () => {
  assert.equal(brainSlug("Work Notes"), "work-notes");
  assert.equal(brainSlug("Café Société"), "cafe-societe");
  assert.equal(brainSlug("  __Team   A__ "), "team-a");
  assert.equal(brainSlug("東京"), "", "nothing usable survives");
  assert.equal(brainSlug("!!!"), "");
  const long = brainSlug("a".repeat(63) + " b");
  assert.equal(long, "a".repeat(63));
  assert.ok(long.length <= LIMITS.slugChars);
  for (const name of ["Work Notes", "Café Société", "x-1", "9 lives"]) {
    assert.match(brainSlug(name), SLUG_PATTERN);
  }
});

Deno.test("normalizePath: makes paths absolute and removes . and empty segments", () => {
  assert.equal(normalizePath("a/./b//c"), "/a/b/c");
  assert.equal(normalizePath("/memory/global/x.md"), "/memory/global/x.md");
  assert.equal(normalizePath("notes/../other/x.md"), "/other/x.md");
  assert.equal(normalizePath("a\\b\\c.md"), "/a/b/c.md");
  assert.equal(normalizePath("/trailing/"), "/trailing");
  assert.equal(normalizePath("/東京/🎉.md"), "/東京/🎉.md");
});

Deno.test("normalizePath: a NUL character is invalid_argument", () => {
  assertInvalid(() => normalizePath("/a\0b.md"), /NUL/);
});

Deno.test("normalizePath: .. escaping the root is invalid_argument", () => {
  assertInvalid(() => normalizePath("../etc/passwd"), /escapes the brain root/);
  assertInvalid(() => normalizePath("/a/../../b"), /escapes the brain root/);
});

Deno.test("normalizePath: a path over 1024 characters is invalid_argument", () => {
  const ok = "/" + "a".repeat(LIMITS.pathChars - 1);
  assert.equal(normalizePath(ok), ok);
  assertInvalid(() => normalizePath("/" + "a".repeat(LIMITS.pathChars)), /1025 characters.*1024/);
});

Deno.test("normalizePath: a path naming nothing is invalid_argument", () => {
  assertInvalid(() => normalizePath("/"), /names no document/);
  assertInvalid(() => normalizePath("./"), /names no document/);
  assertInvalid(() => normalizePath("a/.."), /names no document/);
});

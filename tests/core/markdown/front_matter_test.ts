/**
 * @module What reading front matter could not take as written comes back as warnings naming the
 * line of the text as given (issue 26, "Silent is wrong" 2): a block that does not parse stays in
 * the text, a wrongly typed key is converted where that is clear and said either way.
 */
import assert from "node:assert/strict";
import { readFrontMatter, readNote } from "../../../src/core/markdown/front_matter.ts";
import { frontMatterWarnings } from "../../../src/core/markdown/front_matter_warnings.ts";

const BROKEN = "---\ntitle: Plan\ntags: [a, b\n---\nbody\n";

Deno.test("front matter with an unclosed [ stays in the text, is warned about at its line, and keeps its title", () => {
  const note = readNote(BROKEN);
  assert.equal(note.content, BROKEN, "stored whole, front matter as text");
  assert.equal(note.title, "Plan", "the title line reads alone");
  assert.equal(note.tags, undefined);
  assert.deepEqual(note.warnings, [{
    line: 3,
    message:
      "front matter does not parse (line 3: unclosed flow sequence: a [ without its ]); stored it as part of the text, and read the title from line 2",
  }]);
  // What memory_remember checks: the block alone, no title read.
  assert.deepEqual(frontMatterWarnings(BROKEN), [{
    line: 3,
    message:
      "front matter does not parse (line 3: unclosed flow sequence: a [ without its ]); stored it as part of the text",
  }]);
});

Deno.test("a broken block whose title line is part of the damage keeps no title from it", () => {
  const { front, title, warnings } = readFrontMatter("---\ntitle: [Plan\n---\n# Heading\n");
  assert.equal(front, null);
  assert.equal(title, undefined);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].line, 2);
});

Deno.test("other YAML errors name their line and YAML's reason", () => {
  assert.deepEqual(frontMatterWarnings("---\na: 1\na: 2\n---\nx"), [{
    line: 3,
    message:
      "front matter does not parse (line 3: map keys must be unique); stored it as part of the text",
  }]);
});

Deno.test('tags: 7 is read as the tag "7", with a warning at its line', () => {
  const note = readNote("---\ntitle: T\ntags: 7\n---\nbody\n");
  assert.deepEqual(note.tags, ["7"]);
  assert.deepEqual(note.warnings, [{
    line: 3,
    message: 'tags: 7 is a number; read as the tag "7"',
  }]);
  assert.deepEqual(frontMatterWarnings("---\ntags: 7\n---\nx"), [], "the block itself parses");
});

Deno.test("a map of tags gives no tags and says how to write them", () => {
  const note = readNote("---\ntags:\n  a: 1\n---\nbody\n");
  assert.equal(note.tags, undefined);
  assert.deepEqual(note.warnings, [{
    line: 2,
    message: "tags is a map, not a list of tags; read no tags from it — write tags: [a, b]",
  }]);
});

Deno.test("tags: a list inside the list is left out, a comma inside an item splits it, tag: works too", () => {
  const { front, warnings } = readFrontMatter('---\ntag: [a, [b], "c,d", 2]\n---\nx');
  assert.deepEqual(front?.tags, ["a", "c", "d", "2"]);
  assert.deepEqual(warnings, [{
    line: 2,
    message: "tag: item 2 is a list, not a tag; left it out",
  }]);
});

Deno.test("too many and too long tags are cut, and said", () => {
  const many = Array.from({ length: 70 }, (_, i) => `t${i}`);
  const { front, warnings } = readFrontMatter(
    `---\ntags: [${many.join(", ")}, ${"x".repeat(80)}]\n---\nx`,
  );
  assert.equal(front?.tags.length, 64);
  assert.deepEqual(warnings.map((w) => w.message), ["tags: 71 tags; kept the first 64"]);
  const long = readFrontMatter(`---\ntags: [${"y".repeat(80)}]\n---\nx`);
  assert.deepEqual(long.front?.tags, ["y".repeat(64)]);
  assert.match(long.warnings[0].message, /^tag "y{20}…" is over 64 characters; kept its first 64$/);
});

Deno.test("title: a boolean is read as its word, a list is ignored; a bad date is ignored — each said", () => {
  const t = readFrontMatter("---\ntitle: true\n---\nx");
  assert.equal(t.front?.title, "true");
  assert.deepEqual(t.warnings, [{
    line: 2,
    message: 'title: true is a boolean; read as the title "true"',
  }]);
  const l = readFrontMatter("---\nrating: 5\ntitle: [a, b]\ncreated_at: yesterday\n---\nx");
  assert.equal(l.front?.title, undefined);
  assert.equal(l.front?.created_at, undefined);
  assert.deepEqual(l.warnings, [
    {
      line: 3,
      message: "title is a list, not text; ignored it (the title comes from the note instead)",
    },
    { line: 4, message: 'created_at: "yesterday" is not a date; ignored it' },
  ]);
});

Deno.test("a block that is a list, or never closed, is warned about and kept as text", () => {
  assert.deepEqual(readNote("---\n- a\n- b\n---\nx").warnings, [{
    line: 2,
    message: "front matter is a list, not key: value lines; stored it as part of the text",
  }]);
  const open = "---\ntitle: x\nbody";
  assert.equal(readNote(open).content, open);
  assert.deepEqual(frontMatterWarnings(open), [{
    line: 1,
    message:
      "front matter opened on line 1 is never closed with a --- line; stored it as part of the text",
  }]);
  assert.deepEqual(
    frontMatterWarnings("---\nA rule, then text.\n"),
    [],
    "a thematic break is fine",
  );
});

Deno.test("a clean note has no warnings", () => {
  const note = readNote("---\ntitle: T\ntags: [a, b]\ncreated_at: 2024-01-02\nrating: 5\n---\nx");
  assert.deepEqual(note.warnings, []);
  assert.deepEqual(note.tags, ["a", "b"]);
  assert.deepEqual(readNote("no front matter").warnings, []);
  assert.deepEqual(frontMatterWarnings("# Just a note"), []);
});

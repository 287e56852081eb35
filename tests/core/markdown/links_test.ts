import assert from "node:assert/strict";
import { parseLinks, wikiKey } from "../../../src/core/markdown/links.ts";
import type { LinkInput } from "../../../src/core/types.ts";

const FROM = "/memory/project/notes/today.md";

function wiki(target_key: string, text: string): LinkInput {
  return { kind: "wiki", target_path: null, target_key, text };
}

function md(target_path: string, text: string): LinkInput {
  return { kind: "markdown", target_path, target_key: null, text };
}

Deno.test("links: [[Wiki]], [[Wiki|alias]] and [[Wiki#section]] name the lowercased target", () => {
  const links = parseLinks(
    "See [[Running Plan]], [[Shoes|my shoes]] and [[Recipes#Soup]] and [[Gear#Bags|bags]].",
    FROM,
  );
  assert.deepEqual(links, [
    wiki("running plan", "Running Plan"),
    wiki("shoes", "my shoes"),
    wiki("recipes", "Recipes"),
    wiki("gear", "bags"),
  ]);
});

Deno.test("links: a wiki link to a file path keeps its folders, lowercased, without .md", () => {
  assert.deepEqual(parseLinks("[[archive/2024/Trip.md]]", FROM), [
    wiki("archive/2024/trip", "archive/2024/Trip.md"),
  ]);
  assert.equal(wikiKey("/memory/global/Running-Plan.MD"), "memory/global/running-plan");
  assert.equal(wikiKey("Folder/Running-Plan.md"), "folder/running-plan");
  assert.equal(wikiKey("  Spaced Title  "), "spaced title");
});

Deno.test("links: empty and section-only wiki links are ignored", () => {
  assert.deepEqual(parseLinks("[[]] [[#local]] [[ ]]", FROM), []);
});

Deno.test("links: relative markdown links resolve against the source document's folder", () => {
  const links = parseLinks(
    [
      "[sibling](other.md)",
      "[dot](./dot.md)",
      "[up](../plan.md)",
      "[up two](../../global/run.md)",
      "[abs](/ingest/file.md)",
      "[section](sec.md#part)",
      "[query](q.md?x=1)",
      "[spaces](my%20note.md)",
      '[titled](titled.md "A title")',
      "[angled](<angled.md>)",
    ].join("\n"),
    FROM,
  );
  assert.deepEqual(links, [
    md("/memory/project/notes/other.md", "sibling"),
    md("/memory/project/notes/dot.md", "dot"),
    md("/memory/project/plan.md", "up"),
    md("/memory/global/run.md", "up two"),
    md("/ingest/file.md", "abs"),
    md("/memory/project/notes/sec.md", "section"),
    md("/memory/project/notes/q.md", "query"),
    md("/memory/project/notes/my note.md", "spaces"),
    md("/memory/project/notes/titled.md", "titled"),
    md("/memory/project/notes/angled.md", "angled"),
  ]);
});

Deno.test("links: a relative link climbing above the brain root is dropped", () => {
  assert.deepEqual(parseLinks("[escape](../../../../x.md)", FROM), []);
});

Deno.test("links: external links and #anchors are ignored", () => {
  const links = parseLinks(
    "[web](https://example.com/a.md) [plain](http://x.y) [mail](mailto:a@b.c) " +
      "[file](file:///etc/passwd) [anchor](#top) [ok](kept.md)",
    FROM,
  );
  assert.deepEqual(links, [md("/memory/project/notes/kept.md", "ok")]);
});

Deno.test("links: images are not links", () => {
  assert.deepEqual(parseLinks("![diagram](diagram.png) ![alt](../img.md)", FROM), []);
});

Deno.test("links: links inside fenced code and inline code are ignored", () => {
  const content = [
    "```md",
    "[[InFence]] and [fenced](fenced.md)",
    "```",
    "Inline `[[InCode]]` and `[code](code.md)` here.",
    "~~~",
    "[[Tilde]]",
    "~~~",
    "Real [[Outside]] and [real](real.md).",
  ].join("\n");
  assert.deepEqual(parseLinks(content, FROM), [
    wiki("outside", "Outside"),
    md("/memory/project/notes/real.md", "real"),
  ]);
});

Deno.test("links: the same target linked twice is reported once", () => {
  const links = parseLinks(
    "[[Plan]] [[plan|again]] [[PLAN#x]] [a](p.md) [b](./p.md) [c](../notes/p.md)",
    FROM,
  );
  assert.deepEqual(links, [wiki("plan", "Plan"), md("/memory/project/notes/p.md", "a")]);
});

Deno.test("links: a wiki link and a markdown link to the same note are both kept", () => {
  const links = parseLinks("[[p]] [p](p.md)", FROM);
  assert.equal(links.length, 2);
  assert.deepEqual(links.map((l) => l.kind), ["wiki", "markdown"]);
});

Deno.test("links: a document without links yields none", () => {
  assert.deepEqual(parseLinks("Just [brackets] and (parens) and [[unclosed", FROM), []);
});

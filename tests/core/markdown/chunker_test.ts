import assert from "node:assert/strict";
import { CHUNK_WORDS, chunkMarkdown, OVERLAP_WORDS } from "../../../src/core/markdown/chunker.ts";
import { headingSections } from "../../../src/core/markdown/structure.ts";

/** `n` distinct words: w0 w1 w2 … */
function words(n: number, from = 0): string {
  return Array.from({ length: n }, (_, i) => `w${from + i}`).join(" ");
}

function assertOffsetsSlice(content: string) {
  for (const c of chunkMarkdown(content)) {
    assert.equal(content.slice(c.start_offset, c.end_offset), c.body, `chunk ${c.ordinal}`);
  }
}

Deno.test("chunker: each section gets the path of its nested headings", () => {
  const md = [
    "Intro text before any heading.",
    "# Travel",
    "Trips overview.",
    "## Japan",
    "Tokyo in spring.",
    "### Food",
    "Ramen and sushi.",
    "## Norway",
    "Fjords in summer.",
    "# Work",
    "Projects.",
  ].join("\n");
  const chunks = chunkMarkdown(md);
  assert.deepEqual(
    chunks.map((c) => [c.heading_path, c.body]),
    [
      [[], "Intro text before any heading."],
      [["Travel"], "Trips overview."],
      [["Travel", "Japan"], "Tokyo in spring."],
      [["Travel", "Japan", "Food"], "Ramen and sushi."],
      [["Travel", "Norway"], "Fjords in summer."],
      [["Work"], "Projects."],
    ],
  );
  assert.deepEqual(chunks.map((c) => c.ordinal), [0, 1, 2, 3, 4, 5]);
  assertOffsetsSlice(md);
});

Deno.test("chunker: a heading that skips a level still nests under the nearest shallower heading", () => {
  const chunks = chunkMarkdown("# A\none\n### C\nthree\n## B\ntwo\n");
  assert.deepEqual(chunks.map((c) => c.heading_path), [["A"], ["A", "C"], ["A", "B"]]);
});

Deno.test("chunker: a # line inside a ``` fence is code, not a heading", () => {
  const md = "# Setup\n\n```sh\n# install deps\nnpm ci\n```\n\nThen run it.\n";
  const chunks = chunkMarkdown(md);
  assert.equal(chunks.length, 1);
  assert.deepEqual(chunks[0].heading_path, ["Setup"]);
  assert.match(chunks[0].body, /# install deps/);
  assert.match(chunks[0].body, /Then run it\./);
  assertOffsetsSlice(md);
});

Deno.test("chunker: a ~~~ fence hides headings too, and a shorter fence does not close a longer one", () => {
  const md = "# Top\n~~~~\n# not a heading\n~~~\n## still code\n~~~~\n## Real\nafter\n";
  const chunks = chunkMarkdown(md);
  assert.deepEqual(chunks.map((c) => c.heading_path), [["Top"], ["Top", "Real"]]);
  assert.match(chunks[0].body, /# not a heading[\s\S]*## still code/);
});

Deno.test("chunker: YAML front matter is skipped and is not a chunk", () => {
  const md = "---\ntitle: Hidden\ntags: [a, b]\n---\n# Visible\nBody text.\n";
  const chunks = chunkMarkdown(md);
  assert.equal(chunks.length, 1);
  assert.deepEqual(chunks[0].heading_path, ["Visible"]);
  assert.equal(chunks[0].body, "Body text.");
  assert.ok(!chunks.some((c) => c.body.includes("Hidden")));
  assertOffsetsSlice(md);
});

Deno.test("chunker: a # comment inside front matter is not a heading", () => {
  const chunks = chunkMarkdown("---\n# yaml comment\nkey: v\n---\nplain body\n");
  assert.deepEqual(chunks.map((c) => [c.heading_path, c.body]), [[[], "plain body"]]);
});

Deno.test("chunker: a short section is one chunk holding the whole section text", () => {
  const md = "# Note\n\n" + words(120);
  const chunks = chunkMarkdown(md);
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0].body, words(120));
});

Deno.test("chunker: a long section is cut into 300-word windows that overlap by 50 words", () => {
  assert.equal(CHUNK_WORDS, 300);
  assert.equal(OVERLAP_WORDS, 50);
  const md = "# Long\n\n" + words(700);
  const chunks = chunkMarkdown(md);
  const bodies = chunks.map((c) => c.body.split(" "));
  // Windows start every 250 words: [0,300) [250,550) [500,700).
  assert.equal(chunks.length, 3);
  assert.deepEqual(bodies.map((b) => [b[0], b.at(-1), b.length]), [
    ["w0", "w299", 300],
    ["w250", "w549", 300],
    ["w500", "w699", 200],
  ]);
  for (let i = 1; i < bodies.length; i++) {
    assert.deepEqual(bodies[i].slice(0, 50), bodies[i - 1].slice(-50), `overlap ${i}`);
  }
  assert.ok(chunks.every((c) => c.heading_path[0] === "Long"));
  assertOffsetsSlice(md);
});

Deno.test("chunker: exactly 300 words is one window, 301 words is two", () => {
  assert.equal(chunkMarkdown(words(300)).length, 1);
  const two = chunkMarkdown(words(301));
  assert.equal(two.length, 2);
  assert.equal(two[1].body, words(51, 250));
});

Deno.test("chunker: offsets slice back to the exact chunk body, markup and unicode included", () => {
  const md = "---\na: 1\n---\r\n# Café ☕\r\n\r\n**bold** _é_ 東京 🎉 " + words(400) +
    "\r\n\r\n## Next\r\n\r\n- item [[Link]]\r\n";
  const chunks = chunkMarkdown(md);
  assert.ok(chunks.length >= 3);
  assertOffsetsSlice(md);
  assert.ok(chunks[0].body.startsWith("**bold** _é_ 東京 🎉 w0"));
  assert.equal(chunks.at(-1)!.body, "- item [[Link]]");
  assert.deepEqual(chunks.at(-1)!.heading_path, ["Café ☕", "Next"]);
});

Deno.test("chunker: a document with only headings still yields one chunk", () => {
  const md = "# Alpha\n## Beta\n";
  const chunks = chunkMarkdown(md);
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0].ordinal, 0);
  assert.match(chunks[0].body, /Alpha/);
  assert.match(chunks[0].body, /Beta/);
  assertOffsetsSlice(md);
});

Deno.test("chunker: sections with no words are skipped", () => {
  const md = "# Empty\n\n   \n## Also empty\n\t\n## Full\ncontent here\n# Trailing\n\n";
  const chunks = chunkMarkdown(md);
  assert.deepEqual(chunks.map((c) => [c.heading_path, c.body]), [
    [["Empty", "Full"], "content here"],
  ]);
});

Deno.test("chunker: blank content yields no chunks", () => {
  assert.deepEqual(chunkMarkdown(""), []);
  assert.deepEqual(chunkMarkdown("  \n\n\t"), []);
});

Deno.test("chunker: closing #s and `#hashtag` lines are handled like markdown", () => {
  const chunks = chunkMarkdown("## Title ##\n#hashtag is text\n");
  assert.deepEqual(chunks.map((c) => [c.heading_path, c.body]), [[["Title"], "#hashtag is text"]]);
});

Deno.test("heading sections: front matter skipped, nested paths, fenced headings ignored, empty ones kept", () => {
  const md = [
    "---",
    "title: x",
    "---",
    "Intro.",
    "# A",
    "## B",
    "Under B.",
    "```",
    "# not a heading",
    "```",
    "# C",
    "",
  ].join("\n");
  const sections = headingSections(md).map((s) => ({
    path: s.path,
    text: md.slice(s.start, s.end),
  }));
  assert.deepEqual(sections, [
    { path: [], text: "Intro.\n" },
    { path: ["A"], text: "" },
    { path: ["A", "B"], text: "Under B.\n```\n# not a heading\n```\n" },
    { path: ["C"], text: "" },
  ]);
  assert.deepEqual(headingSections("plain"), [{ path: [], start: 0, end: 5 }]);
});

import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { decodeUtf8, extract, formatOf } from "../../src/ingest/formats.ts";
import { jsonToMarkdown } from "../../src/ingest/transcript.ts";
import { FIXTURES, minimalPdf } from "../fixtures/ingest/fixtures.ts";

const enc = new TextEncoder();

/** Asserts `fn` throws an EngramError with `code` and a message matching `message`. */
async function rejects(
  fn: () => unknown,
  code: string,
  message: RegExp | string,
): Promise<void> {
  await assert.rejects(async () => await fn(), (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected an EngramError, got ${err}`);
    assert.equal(err.code, code);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

async function fixture(name: string): Promise<Uint8Array> {
  return await Deno.readFile(`${FIXTURES}/${name}`);
}

Deno.test("formatOf tells the format from the extension, case-insensitively", () => {
  const cases: [string, string][] = [
    ["notes.md", "markdown"],
    ["/a/b/README.MARKDOWN", "markdown"],
    ["page.mdx", "markdown"],
    ["todo.txt", "text"],
    ["server.log", "text"],
    ["doc.rst", "text"],
    ["agenda.org", "text"],
    ["table.csv", "text"],
    ["paper.PDF", "pdf"],
    ["chat.json", "json"],
    ["/dir.with.dots/file.md", "markdown"],
  ];
  for (const [name, format] of cases) assert.equal(formatOf(name), format, name);
});

Deno.test("formatOf refuses an unknown or missing extension and says to pass `as`", async () => {
  for (const name of ["report.docx", "Makefile", "archive.tar.gz", "notes.md.bak"]) {
    await rejects(
      () => formatOf(name),
      "invalid_argument",
      `cannot tell the format of ${name} from its extension; pass as: markdown, text, pdf or json`,
    );
  }
});

Deno.test("formatOf: `as` wins over the extension, and makes unknown extensions readable", () => {
  assert.equal(formatOf("notes.md", "text"), "text");
  assert.equal(formatOf("report.docx", "markdown"), "markdown");
  assert.equal(formatOf("Makefile", "text"), "text");
  assert.equal(formatOf("data.txt", "json"), "json");
});

Deno.test("decodeUtf8 returns the text, without a byte-order mark", () => {
  assert.equal(decodeUtf8(enc.encode("héllo ✓ 日本"), "a.txt"), "héllo ✓ 日本");
  assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]), "bom.txt"), "hi");
  assert.equal(decodeUtf8(new Uint8Array(), "empty.txt"), "");
});

Deno.test("decodeUtf8 refuses NUL bytes as binary", async () => {
  await rejects(
    () => decodeUtf8(new Uint8Array([0x68, 0x00, 0x69]), "photo.md"),
    "invalid_argument",
    "photo.md looks binary (it contains NUL bytes), not text",
  );
});

Deno.test("decodeUtf8 refuses invalid UTF-8 and says to convert it", async () => {
  // "caf\xe9" is Latin-1; 0xc3 0x28 is a broken two-byte sequence.
  for (const bytes of [[0x63, 0x61, 0x66, 0xe9], [0x61, 0xc3, 0x28]]) {
    await rejects(
      () => decodeUtf8(new Uint8Array(bytes), "latin1.txt"),
      "invalid_argument",
      "latin1.txt is not valid UTF-8 text; convert it to UTF-8 first",
    );
  }
});

Deno.test("extract markdown: front matter becomes title, tags and metadata; the body is stored", async () => {
  const text = [
    "---",
    "title: Trip plan",
    "tags: [travel, hiking]",
    "season: autumn",
    "days: 3",
    "---",
    "# Day one",
    "",
    "Walk to the lake.",
    "",
  ].join("\n");
  const x = await extract(enc.encode(text), { name: "/root/trip.md", format: "markdown" });
  assert.equal(x.title, "Trip plan");
  assert.deepEqual(x.tags, ["travel", "hiking"]);
  assert.deepEqual(x.metadata, { season: "autumn", days: 3, source_format: "markdown" });
  assert.equal(x.content, "# Day one\n\nWalk to the lake.\n");
  assert.equal(x.contentType, "text/markdown");
});

Deno.test("extract markdown without front matter keeps the text and sets no title or tags", async () => {
  const x = await extract(enc.encode("# Heading\n\nBody.\n"), { name: "a.md", format: "markdown" });
  assert.equal(x.content, "# Heading\n\nBody.\n");
  assert.equal(x.title, undefined);
  assert.equal(x.tags, undefined);
  assert.deepEqual(x.metadata, { source_format: "markdown" });
});

Deno.test("extract text is stored verbatim as text/plain", async () => {
  const text = "line one\n  indented *not markdown*\n";
  const x = await extract(enc.encode(text), { name: "a.txt", format: "text" });
  assert.equal(x.content, text);
  assert.equal(x.contentType, "text/plain");
  assert.deepEqual(x.metadata, { source_format: "text" });
  assert.equal(x.title, undefined);
});

Deno.test("extract refuses an empty or blank text file", async () => {
  for (const format of ["markdown", "text"] as const) {
    await rejects(
      () => extract(enc.encode(" \n\t\n"), { name: "blank.md", format }),
      "invalid_argument",
      "blank.md is empty; nothing to ingest",
    );
  }
});

Deno.test("extract refuses binary bytes in a markdown file", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  await rejects(
    () => extract(png, { name: "image.md", format: "markdown" }),
    "invalid_argument",
    "image.md looks binary (it contains NUL bytes), not text",
  );
});

Deno.test("extract json: an array of {role, content} becomes readable **role:** lines", async () => {
  const x = await extract(await fixture("chat_array.json"), {
    name: "/exports/chat_array.json",
    format: "json",
  });
  assert.equal(x.title, "Transcript: chat_array.json");
  assert.equal(
    x.content,
    [
      "# Transcript: chat_array.json",
      "",
      "**user:** Which trail did we pick for the Saturday hike?",
      "",
      "**assistant:** The Larch Valley loop, starting at 7 am from Moraine Lake.",
      "",
      "**user:** Remind me to pack crampons.",
      "",
    ].join("\n"),
  );
  assert.deepEqual(x.metadata, { source_format: "json" });
  assert.equal(x.contentType, "text/markdown");
});

Deno.test("extract json: {title, messages: [...]} keeps the title and every turn", async () => {
  const x = await extract(await fixture("chat_messages.json"), {
    name: "chat_messages.json",
    format: "json",
  });
  assert.equal(x.title, "Kiln schedule");
  assert.equal(
    x.content,
    "# Kiln schedule\n\n**system:** You are a pottery assistant.\n\n" +
      "**user:** What cone should the glaze firing reach?\n\n" +
      "**assistant:** Cone 6, with a slow cool through 1000 degrees.\n",
  );
});

Deno.test("extract json: a ChatGPT export's mapping tree is read in creation order, empty nodes dropped", async () => {
  const x = await extract(await fixture("chatgpt_export.json"), {
    name: "chatgpt_export.json",
    format: "json",
  });
  assert.equal(x.title, "Sourdough troubleshooting");
  assert.equal(
    x.content,
    "# Sourdough troubleshooting\n\n**user:** Why is my sourdough so dense?\n\n" +
      "**assistant:** Your starter is probably underfed; feed it twice a day at 1:5:5.\n",
  );
});

Deno.test("extract json: a Claude export's {name, chat_messages: [{sender, text}]} becomes a conversation", async () => {
  const x = await extract(await fixture("claude_export.json"), {
    name: "claude_export.json",
    format: "json",
  });
  assert.equal(x.title, "Tide pool field notes");
  assert.equal(
    x.content,
    "# Tide pool field notes\n\n**human:** List the anemones we saw at Botany Bay.\n\n" +
      "**assistant:** Giant green anemones and aggregating anemones near the sea wall.\n",
  );
});

Deno.test("jsonToMarkdown: an array of conversations gets one section per conversation", () => {
  const md = jsonToMarkdown([
    { name: "First", chat_messages: [{ sender: "human", text: "one" }] },
    { title: "Second", messages: [{ role: "user", content: "two" }] },
  ], "all.json");
  assert.equal(md.title, "Transcript: all.json");
  assert.equal(
    md.markdown,
    "# Transcript: all.json\n\n## First\n\n**human:** one\n\n## Second\n\n**user:** two\n",
  );
});

Deno.test("extract json: other JSON is kept as a fenced block titled with the file name", async () => {
  const value = { settings: { theme: "dark", font_size: 14 }, recent: ["a.md", "b.md"] };
  const x = await extract(enc.encode(JSON.stringify(value)), {
    name: "/home/u/config/settings.json",
    format: "json",
  });
  assert.equal(x.title, "settings.json");
  assert.equal(
    x.content,
    "# settings.json\n\n```json\n" + JSON.stringify(value, null, 2) + "\n```\n",
  );
  assert.deepEqual(x.metadata, { source_format: "json" });
});

Deno.test("extract json: messages without a role are not a transcript", async () => {
  const x = await extract(enc.encode('[{"content": "hi"}, {"content": "there"}]'), {
    name: "list.json",
    format: "json",
  });
  assert.equal(x.title, "list.json");
  assert.match(x.content, /^# list\.json\n\n```json\n\[\n {2}\{\n {4}"content": "hi"/);
});

Deno.test("extract json refuses invalid JSON, naming the file and the parse error", async () => {
  await rejects(
    () => extract(enc.encode('{"role": "user",'), { name: "broken.json", format: "json" }),
    "invalid_argument",
    /^broken\.json is not valid JSON: \S/,
  );
});

Deno.test("extract pdf: the text of every page, one section per page, and the PDF's title", async () => {
  const one = await extract(minimalPdf(["Quarterly zebrafish census"]), {
    name: "census.pdf",
    format: "pdf",
  });
  assert.equal(one.content, "Quarterly zebrafish census");
  assert.equal(one.title, undefined);
  assert.deepEqual(one.metadata, { source_format: "pdf" });
  assert.equal(one.contentType, "text/markdown");

  const two = await extract(minimalPdf(["Alpha page", "Beta (page)"], { title: "Field Guide" }), {
    name: "guide.pdf",
    format: "pdf",
  });
  assert.equal(two.title, "Field Guide");
  assert.equal(two.content, "## Page 1\n\nAlpha page\n\n## Page 2\n\nBeta (page)");
});

Deno.test("extract pdf refuses a corrupt PDF as not readable", async () => {
  await rejects(
    async () => await extract(await fixture("corrupt.pdf"), { name: "corrupt.pdf", format: "pdf" }),
    "invalid_argument",
    /^corrupt\.pdf is not a readable PDF: /,
  );
});

Deno.test("extract pdf refuses a PDF without text and says it needs OCR", async () => {
  await rejects(
    () => extract(minimalPdf([""]), { name: "scan.pdf", format: "pdf" }),
    "invalid_argument",
    "scan.pdf has no extractable text (a scanned PDF needs OCR before it can be ingested)",
  );
});

Deno.test("generic JSON holding triple backticks stays inside one longer fence", async () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ snippet: "```js\nx()\n```" }));
  const out = await extract(bytes, { name: "code.json", format: "json" });
  assert.match(out.content, /^# code\.json\n\n````json\n/);
  assert.match(out.content, /\n````\n$/);
});

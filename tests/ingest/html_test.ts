/** @module Tests for HTML-to-markdown conversion and body decoding. */
import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { decodeText, htmlToMarkdown } from "../../src/ingest/html.ts";

const PROSE = "This paragraph is the substance of the article, written as ordinary prose with " +
  "enough sentences, commas, and words that a reader-mode extractor scores it as main content.";

const ARTICLE_PAGE = `<!doctype html>
<html><head><title>Site name | Article</title></head>
<body>
  <header><nav><a href="/home">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav></header>
  <main><article>
    <h1>Understanding Engrams</h1>
    <p>${PROSE} See <a href="guide/setup.html">the setup guide</a> and
       <a href="https://other.example/abs">an absolute link</a>.</p>
    <p>${PROSE} <img src="../img/diagram.png" alt="diagram"></p>
    <p>${PROSE} Jump to <a href="#notes">notes</a>.</p>
  </article></main>
  <footer><p>Copyright 2026 Example Corp. Privacy policy. Terms of service.</p></footer>
  <script>window.tracking = "should not appear";</script>
</body></html>`;

Deno.test("htmlToMarkdown: keeps the main content and drops nav, footer and scripts", async () => {
  const { title, markdown } = await htmlToMarkdown(
    ARTICLE_PAGE,
    "https://blog.example/posts/engrams",
  );
  assert.equal(title, "Site name | Article");
  assert.match(markdown, /Understanding Engrams/);
  assert.match(markdown, /substance of the article/);
  assert.doesNotMatch(markdown, /About us/);
  assert.doesNotMatch(markdown, /Copyright 2026/);
  assert.doesNotMatch(markdown, /tracking/);
});

Deno.test("htmlToMarkdown: relative links and images become absolute", async () => {
  const { markdown } = await htmlToMarkdown(ARTICLE_PAGE, "https://blog.example/posts/engrams");
  assert.match(
    markdown,
    /\[the setup guide\]\(https:\/\/blog\.example\/posts\/guide\/setup\.html\)/,
  );
  assert.match(markdown, /\[an absolute link\]\(https:\/\/other\.example\/abs\)/);
  assert.match(markdown, /!\[diagram\]\(https:\/\/blog\.example\/img\/diagram\.png\)/);
  // An in-page anchor means nothing outside the page: its text stays, the link goes.
  assert.match(markdown, /Jump to notes/);
});

Deno.test("htmlToMarkdown: a <base href> is honoured for relative links", async () => {
  const html = `<html><head><base href="https://cdn.example/docs/"><title>B</title></head>
    <body><p>Read <a href="intro.html">the intro</a>.</p></body></html>`;
  const { markdown } = await htmlToMarkdown(html, "https://site.example/page");
  assert.match(markdown, /\(https:\/\/cdn\.example\/docs\/intro\.html\)/);
});

Deno.test("htmlToMarkdown: a page Readability finds nothing in falls back to the body", async () => {
  // Readability discards <aside> and images without text and so returns no article for these.
  const html = `<html><head><title>Tiny</title></head><body>
    <aside>Short note with <a href="/x">a link</a>.</aside><script>var hidden = 1;</script>
    <style>.x { color: red }</style></body></html>`;
  const { title, markdown } = await htmlToMarkdown(html, "https://tiny.example/a/b");
  assert.equal(title, "Tiny");
  assert.equal(markdown, "Short note with [a link](https://tiny.example/x).");
  const image = await htmlToMarkdown(
    `<body><img src="pic.png" alt="pic"></body>`,
    "https://i.example/d/",
  );
  assert.equal(image.markdown, "![pic](https://i.example/d/pic.png)");
});

Deno.test("htmlToMarkdown: title falls back to <title>, then to the URL", async () => {
  const withTitle = await htmlToMarkdown(
    `<html><head><title>  Only the title  </title></head><body><p>x</p></body></html>`,
    "https://t.example/",
  );
  assert.equal(withTitle.title, "Only the title");
  const untitled = await htmlToMarkdown("<p>bare fragment</p>", "https://t.example/untitled");
  assert.equal(untitled.title, "https://t.example/untitled");
  assert.match(untitled.markdown, /bare fragment/);
});

Deno.test("decodeText: uses the Content-Type charset, utf-8 by default", async () => {
  // "café déjà" in ISO-8859-1: é = 0xe9, à = 0xe0.
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x64, 0xe9, 0x6a, 0xe0]);
  assert.equal(decodeText(latin1, "text/html; charset=ISO-8859-1"), "café déjà");
  assert.equal(decodeText(latin1, 'text/html; charset="latin1"'), "café déjà");
  const utf8 = new TextEncoder().encode("café déjà");
  assert.equal(decodeText(utf8, "text/plain"), "café déjà");
  assert.equal(decodeText(utf8, ""), "café déjà");
  const page = new Uint8Array([
    ...new TextEncoder().encode("<html><head><title>Caf"),
    0xe9,
    ...new TextEncoder().encode("</title></head><body><p>x</p></body></html>"),
  ]);
  const decoded = decodeText(page, "text/html;charset=windows-1252");
  assert.equal((await htmlToMarkdown(decoded, "https://c.example/")).title, "Café");
});

Deno.test("decodeText: binary content and unknown charsets are invalid_argument", () => {
  const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]);
  assert.throws(() => decodeText(binary, "text/plain"), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "invalid_argument");
    assert.match(err.message, /content looks binary \(it contains NUL bytes/);
    return true;
  });
  assert.throws(() => decodeText(new Uint8Array([0x61]), "text/plain; charset=klingon"), (
    err: unknown,
  ) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "invalid_argument");
    assert.match(err.message, /unsupported charset "klingon"/);
    return true;
  });
  // UTF-16 legitimately contains NUL bytes.
  const utf16 = new Uint8Array([0x68, 0x00, 0x69, 0x00]);
  assert.equal(decodeText(utf16, "text/plain; charset=utf-16le"), "hi");
});

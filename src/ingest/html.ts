/**
 * @module Turns fetched bytes into text, and HTML pages into readable markdown (main content
 * only, links absolute).
 */
import { EngramError } from "../core/errors.ts";

/** A page converted to markdown. */
export interface HtmlMarkdown {
  title: string;
  markdown: string;
}

/** Attributes holding URLs that must survive being read out of context. */
const URL_ATTRIBUTES: readonly (readonly [string, string])[] = [
  ["a[href]", "href"],
  ["img[src]", "src"],
  ["area[href]", "href"],
  ["source[src]", "src"],
  ["video[src]", "src"],
  ["audio[src]", "src"],
];

/**
 * The HTML libraries, loaded on first use: they cost ~150 ms and ~15 MB at start-up, which every
 * `engram stdio` would pay though most sessions never fetch a page. (Modules are cached after the
 * first import.)
 */
async function libraries() {
  const [{ parseHTML }, { Readability }, { NodeHtmlMarkdown }] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
    import("node-html-markdown"),
  ]);
  return { parseHTML, Readability, converter: new NodeHtmlMarkdown({ keepDataImages: false }) };
}

type Libraries = Awaited<ReturnType<typeof libraries>>;

/** The slice of a linkedom element this module touches (engram type-checks without the DOM lib). */
interface HtmlElement {
  textContent: string | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
}

/** The slice of a linkedom document this module touches. */
interface HtmlDocument {
  querySelector(selector: string): HtmlElement | null;
  querySelectorAll(selector: string): Iterable<HtmlElement>;
  cloneNode(deep: boolean): unknown;
  toString(): string;
}

/** Parses a page with linkedom. */
function parseDocument(html: string, parseHTML: Libraries["parseHTML"]): HtmlDocument {
  return (parseHTML(html) as unknown as { document: HtmlDocument }).document;
}

/** Resolves a possibly relative URL, or null when it cannot be (kept as written then). */
function absolute(value: string, base: string): string | null {
  try {
    return new URL(value, base).href;
  } catch {
    return null;
  }
}

/** Rewrites relative links to absolute ones, honouring a <base href> as browsers do. */
function absolutizeLinks(document: HtmlDocument, url: string): void {
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  const base = (baseHref && absolute(baseHref, url)) || url;
  for (const [selector, attribute] of URL_ATTRIBUTES) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute)?.trim() ?? "";
      // In-page anchors and script links mean nothing once the text leaves the page.
      if (value === "" || value.startsWith("#") || /^javascript:/i.test(value)) {
        if (attribute === "href") element.removeAttribute(attribute);
        continue;
      }
      const resolved = absolute(value, base);
      if (resolved) element.setAttribute(attribute, resolved);
    }
  }
}

/** Readability's view of the page's main content, or null when it finds none. */
function extractArticle(
  document: HtmlDocument,
  Readability: Libraries["Readability"],
): { title: string; content: string } | null {
  try {
    // Readability mutates the document it reads; give it a copy so the <body> fallback stays intact.
    const copy = document.cloneNode(true);
    const article = new Readability(copy as ConstructorParameters<typeof Readability>[0]).parse();
    if (!article?.content || !article.textContent?.trim()) return null;
    return { title: article.title?.trim() ?? "", content: article.content };
  } catch {
    // Readability throws on some malformed documents; the <body> fallback still gives text.
    return null;
  }
}

/**
 * Converts an HTML page to markdown: Readability's main content (menus, nav, footers dropped),
 * else the whole <body>; links absolute against `url`. Title: article, else <title>, else the URL.
 */
export async function htmlToMarkdown(html: string, url: string): Promise<HtmlMarkdown> {
  const { parseHTML, Readability, converter } = await libraries();
  const document = parseDocument(html, parseHTML);
  absolutizeLinks(document, url);
  const article = extractArticle(document, Readability);
  const pageTitle = document.querySelector("title")?.textContent?.trim() ?? "";
  let markdown = article ? converter.translate(article.content).trim() : "";
  if (markdown === "") {
    for (const element of document.querySelectorAll("script, style, noscript, template")) {
      element.remove();
    }
    const body = document.querySelector("body")?.innerHTML ?? document.toString();
    markdown = converter.translate(body).trim();
  }
  const title = article?.title || pageTitle || url;
  return { title, markdown };
}

/** The `charset` parameter of a Content-Type, or null. */
function charsetOf(contentType: string): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match ? match[1].toLowerCase() : null;
}

/**
 * Decodes a body as text using the Content-Type charset (utf-8 when absent); binary content
 * (NUL bytes) and unknown charsets are refused with invalid_argument.
 */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const charset = charsetOf(contentType) ?? "utf-8";
  // UTF-16 text legitimately contains NUL bytes; every other charset engram accepts does not.
  if (!charset.startsWith("utf-16") && bytes.includes(0)) {
    throw new EngramError(
      "invalid_argument",
      `content looks binary (it contains NUL bytes; Content-Type ${
        contentType || "missing"
      }); only text, markdown, HTML and JSON can be ingested from a URL`,
    );
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    throw new EngramError(
      "invalid_argument",
      `unsupported charset "${charset}" in Content-Type ${contentType}`,
    );
  }
  return decoder.decode(bytes);
}

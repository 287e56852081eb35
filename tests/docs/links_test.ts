/**
 * @module Every link a reader or a code comment follows resolves: each relative markdown link in
 * README.md, CHANGELOG.md and docs/ names a file of the repository (and, with `#anchor`, one of its
 * headings), and each `docs/<page>.md#<heading>` a comment cites exists. A comment may cite no
 * document the repository does not hold: the original spec files live outside it, so a clone could
 * not follow them (docs/architecture.md, "Testing").
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), "..", ".."));

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor of a markdown text: its headings' anchors, a repeated one numbered as GitHub does. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = headingAnchor(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative link targets of a markdown text, outside code blocks and code spans. */
export function linksOf(markdown: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) links.push(m[1]);
    }
  }
  return links;
}

/** What is wrong with one link from `from` (a repository path); undefined when it resolves. */
export function brokenLink(from: string, target: string, root = ROOT): string | undefined {
  const [path, anchor] = target.split("#", 2);
  const file = path === "" ? from : normalize(join(dirname(from), decodeURIComponent(path)));
  if (relative(root, join(root, file)).startsWith("..")) return `${target}: leaves the repository`;
  const full = join(root, file);
  if (!existsSync(full)) return `${target}: no file ${file}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(full).isDirectory() || !file.endsWith(".md")) {
    return `${target}: not a markdown page`;
  }
  const anchors = anchorsOf(readFileSync(full, "utf8"));
  return anchors.has(anchor) ? undefined : `${target}: ${file} has no heading #${anchor}`;
}

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(entry.name)) out.push(path);
  }
  return out;
}

const PAGES = ["README.md", "CHANGELOG.md", ...filesUnder("docs", (n) => n.endsWith(".md"))];
const CODE = [
  "main.ts",
  ...["src", "tests", "bench", "scripts"].flatMap((d) =>
    filesUnder(d, (n) => /\.(ts|js)$/.test(n))
  ),
];
/** Spec files that lived beside the repository; named in pieces so this file does not cite them. */
const OUTSIDE = ["TOOLS", "CLIENT", "PRODUCT", "SERVER"].map((n) => `${n}.md`);
const THIS_FILE = relative(ROOT, new URL(import.meta.url).pathname);

Deno.test("headingAnchor and brokenLink follow GitHub's anchors, and report what is missing", () => {
  assert.equal(
    headingAnchor("## `engram mcp` servers: a/b (c)".slice(3)),
    "engram-mcp-servers-ab-c",
  );
  assert.equal(headingAnchor("Import another client's config"), "import-another-clients-config");
  assert.deepEqual([...anchorsOf("# A\n## B\n## B\n```\n# not\n```\n")], ["a", "b", "b-1"]);
  assert.deepEqual(linksOf("[a](x.md#y) `[b](no.md)` [c](https://e.x) [d](#z)"), ["x.md#y", "#z"]);
  assert.equal(brokenLink("README.md", "docs/nope.md"), "docs/nope.md: no file docs/nope.md");
  assert.match(brokenLink("README.md", "README.md#no-such-heading") ?? "", /has no heading/);
  assert.match(brokenLink("docs/x.md", "../../outside.md") ?? "", /leaves the repository/);
  assert.equal(brokenLink("README.md", "README.md"), undefined);
});

Deno.test("the docs pages exist and every relative link in them and the README resolves", () => {
  for (const page of ["getting-started", "tools", "upstream", "cli", "configuration", "http"]) {
    assert.ok(PAGES.includes(`docs/${page}.md`), `docs/${page}.md is missing`);
  }
  for (const page of ["operations", "architecture"]) {
    assert.ok(PAGES.includes(`docs/${page}.md`), `docs/${page}.md is missing`);
  }
  const broken: string[] = [];
  let count = 0;
  for (const page of PAGES) {
    if (!existsSync(join(ROOT, page))) continue;
    for (const link of linksOf(readFileSync(join(ROOT, page), "utf8"))) {
      count++;
      const problem = brokenLink(page, link);
      if (problem) broken.push(`${page}: ${problem}`);
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
  assert.ok(count > 50, `only ${count} links found: the link reader is broken`);
});

Deno.test("code cites only docs/ pages and headings that exist, and no file outside the repo", () => {
  const broken: string[] = [];
  let citations = 0;
  for (const file of CODE) {
    if (file === THIS_FILE) continue;
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      const at = `${file}:${i + 1}`;
      for (const name of OUTSIDE) {
        if (line.includes(name)) {
          broken.push(`${at}: cites ${name}, which is not in the repository`);
        }
      }
      for (const m of line.matchAll(/(?<![\w/.-])docs\/[\w/-]+\.md(?:#[\w-]+)?/g)) {
        citations++;
        const problem = brokenLink("README.md", m[0]);
        if (problem) broken.push(`${at}: ${problem}`);
      }
      for (const m of line.matchAll(/(?<![\w/.-])((?:[\w-]+\/)*[A-Z][A-Z_]+\.md)\b/g)) {
        if (!existsSync(join(ROOT, m[1])) && !OUTSIDE.includes(m[1])) {
          broken.push(`${at}: cites ${m[1]}, which is not a file of the repository`);
        }
      }
    });
  }
  assert.deepEqual(broken, [], `broken citations:\n${broken.join("\n")}`);
  assert.ok(citations > 20, `only ${citations} docs/ citations found: the reader is broken`);
});

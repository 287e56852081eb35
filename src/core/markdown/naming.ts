/** @module Titles, slugs and paths derived from content, and path normalisation. */
import { EngramError } from "../errors.ts";
import { LIMITS } from "../limits.ts";
import { findHeadings, frontMatterLength } from "./structure.ts";

/** A line of three or more `-`, `*` or `_` (spaces between allowed): a rule, not text. */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** The first heading, else the first non-empty line that is not a code fence, cut to the title limit. */
export function deriveTitle(content: string): string {
  const heading = findHeadings(content)[0];
  let title = heading?.text ?? "";
  if (!title) {
    const body = content.slice(frontMatterLength(content));
    // A thematic break (`---`, also the opening of front matter never closed) names nothing.
    const first = body.split(/\r?\n/).find((l) =>
      l.trim() !== "" && !/^\s{0,3}(?:`{3,}|~{3,})/.test(l) && !THEMATIC_BREAK.test(l)
    ) ?? "";
    title = first.replace(/^\s*(?:[#>*+-]|\d+[.)])\s*/, "").trim() || first.trim();
  }
  title = title.replace(/\s+/g, " ").trim();
  // The limit counts UTF-16 code units, like the wire schemas; a surrogate pair is never split.
  if (title.length > LIMITS.titleChars) {
    let cut = "";
    for (const ch of title) {
      if (cut.length + ch.length > LIMITS.titleChars - 1) break;
      cut += ch;
    }
    title = cut + "…";
  }
  return title || "Untitled";
}

/** A lowercase, hyphenated slug that keeps letters and digits of any script. */
export function slugify(text: string, maxChars = 80): string {
  const slug = text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return [...slug].slice(0, maxChars).join("").replace(/-+$/, "");
}

/** A brain slug from a name, matching `^[a-z0-9][a-z0-9-]*$`, or "" when nothing survives. */
export function brainSlug(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, LIMITS.slugChars)
    .replace(/-+$/, "");
}

/** The default path for a titled note in the global scope. */
export function derivePath(title: string): string {
  return `/memory/global/${slugify(title) || "untitled"}.md`;
}

/** Absolute, `/`-separated, without `.`/`..` segments; rejects NUL, escapes above root and over-long paths. */
export function normalizePath(path: string): string {
  if (path.includes("\0")) {
    throw new EngramError("invalid_argument", "path must not contain NUL characters");
  }
  const parts: string[] = [];
  for (const seg of path.replace(/\\/g, "/").split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) {
        throw new EngramError(
          "invalid_argument",
          `path "${path}" escapes the brain root with ".."`,
        );
      }
      parts.pop();
      continue;
    }
    parts.push(seg);
  }
  if (parts.length === 0) {
    throw new EngramError(
      "invalid_argument",
      `path "${path}" names no document; give e.g. /notes/a.md`,
    );
  }
  const out = "/" + parts.join("/");
  if (out.length > LIMITS.pathChars) {
    throw new EngramError(
      "invalid_argument",
      `path is ${out.length} characters; the limit is ${LIMITS.pathChars}`,
    );
  }
  return out;
}

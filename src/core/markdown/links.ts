/** @module Outgoing links in markdown: `[[wiki links]]` and relative markdown links. */
import type { LinkInput } from "../types.ts";
import { scanLines } from "./structure.ts";

const WIKI = /\[\[([^\[\]|#\n]+)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]/g;
const MD_LINK = /(?<!!)\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"\n]*")?\s*\)/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The lookup key of a wiki-link target: lowercased, without `.md` or a leading `/`, folders kept.
 * `[[Note]]` matches a document titled "Note" or named note.md; `[[folder/note]]` matches a path
 * ending in folder/note.md (as Obsidian resolves it).
 */
export function wikiKey(target: string): string {
  return target.trim().replace(/\.md$/i, "").replace(/^\/+/, "").trim().toLowerCase();
}

/** Links in `content`, ignoring fenced code; markdown links resolved against `fromPath`. */
export function parseLinks(content: string, fromPath: string): LinkInput[] {
  const text = scanLines(content).filter((l) => !l.inFence).map((l) =>
    l.text.replace(/`[^`\n]*`/g, "")
  )
    .join("\n");
  const out: LinkInput[] = [];
  const seen = new Set<string>();
  const add = (link: LinkInput) => {
    const key = `${link.kind}\0${link.target_path}\0${link.target_key}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(link);
    }
  };
  for (const m of text.matchAll(WIKI)) {
    const key = wikiKey(m[1]);
    if (key) add({ kind: "wiki", target_path: null, target_key: key, text: (m[2] ?? m[1]).trim() });
  }
  for (const m of text.matchAll(MD_LINK)) {
    const href = m[2];
    if (SCHEME.test(href) || href.startsWith("#")) continue;
    const target = resolveHref(href, fromPath);
    if (target) add({ kind: "markdown", target_path: target, target_key: null, text: m[1].trim() });
  }
  return out;
}

function resolveHref(href: string, fromPath: string): string | null {
  let clean = href.split("#")[0].split("?")[0];
  try {
    clean = decodeURI(clean);
  } catch {
    // Keep the raw href when it is not valid percent-encoding.
  }
  if (!clean) return null;
  const base = clean.startsWith("/") ? [] : fromPath.split("/").slice(0, -1);
  const parts = base.filter(Boolean);
  for (const seg of clean.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length ? "/" + parts.join("/") : null;
}

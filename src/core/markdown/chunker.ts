/**
 * @module Heading-aware markdown chunking.
 *
 * A document is cut at ATX headings into sections; each chunk remembers its heading path.
 * A section longer than CHUNK_WORDS is cut into windows of CHUNK_WORDS words that overlap by
 * OVERLAP_WORDS, so a sentence on a window edge is still found whole. 300/50 words sits between
 * the peers (basic-memory ~300 words/50, mcp-memory-service 512 tokens/64) and keeps a hit short
 * enough to quote. Windows slice the original text, so markup and offsets are preserved.
 */
import type { ChunkInput } from "../types.ts";
import { headingSections } from "./structure.ts";

/** Words per chunk window. */
export const CHUNK_WORDS = 300;
/** Words shared by consecutive windows of one section. */
export const OVERLAP_WORDS = 50;

/** Cuts markdown into chunks with heading paths and offsets into `content`. */
export function chunkMarkdown(content: string): ChunkInput[] {
  const sections = headingSections(content);
  const chunks: ChunkInput[] = [];
  for (const section of sections) {
    for (const w of windows(content, section.start, section.end)) {
      chunks.push({
        ordinal: chunks.length,
        heading_path: section.path,
        body: w.body,
        start_offset: w.start,
        end_offset: w.end,
      });
    }
  }

  if (chunks.length === 0) {
    // Only headings (or only front matter): index the text as one chunk so the document is findable.
    const body = content.trim();
    if (body) {
      const start = content.indexOf(body);
      chunks.push({
        ordinal: 0,
        heading_path: sections[sections.length - 1].path,
        body,
        start_offset: start,
        end_offset: start + body.length,
      });
    }
  }
  return chunks;
}

function* windows(text: string, start: number, end: number) {
  const words: { s: number; e: number }[] = [];
  const re = /\S+/g;
  const section = text.slice(start, end);
  for (let m = re.exec(section); m; m = re.exec(section)) {
    words.push({ s: start + m.index, e: start + m.index + m[0].length });
  }
  if (words.length === 0) return;
  const step = CHUNK_WORDS - OVERLAP_WORDS;
  for (let i = 0; i < words.length; i += step) {
    const last = Math.min(i + CHUNK_WORDS, words.length) - 1;
    const s = words[i].s;
    const e = words[last].e;
    yield { start: s, end: e, body: text.slice(s, e) };
    if (last === words.length - 1) break;
  }
}

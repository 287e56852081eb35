/**
 * @module Sentence splitting with offsets into the original text. Markdown-aware: headings, list
 * items and table rows are sentences of their own, code fences and front matter are skipped, and
 * abbreviations, decimals, versions and URLs do not end a sentence.
 */
import { frontMatterLength, scanLines } from "../markdown/structure.ts";

/** What markdown block a sentence came from. */
export type SentenceKind = "heading" | "item" | "row" | "prose";

/** A trimmed sentence; `text === source.slice(start, end)`. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
  kind: SentenceKind;
}

interface Block {
  start: number;
  end: number;
  kind: SentenceKind;
}

const HEADING = /^ {0,3}#{1,6}[ \t]+/;
const CLOSING_HASHES = /[ \t]+#+[ \t]*$/;
const ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/;
const QUOTE = /^ {0,3}(?:>[ \t]?)+/;
const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$/;
const TABLE_RULE = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;
const TERMINATORS = ".!?…。！？";
/** CJK full stops end a sentence without a following space. */
const CJK_TERMINATORS = "。！？";
const CLOSERS = `"')]}”’»*_`;
/** A citation marker right after a sentence's end belongs to that sentence. */
const CITATION = /^[ \t]*\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]/;
const MARKER_WINDOW = 64;
/** Abbreviations after which a full stop never ends the sentence. */
const ABBREVIATIONS: ReadonlySet<string> = new Set(
  ("mr mrs ms dr prof sr jr st vs e.g i.e cf approx incl esp viz et al " +
    "a.m p.m u.s u.k")
    .split(" "),
);
/** Abbreviations that precede a number ("No. 5", "Fig. 3", "v. 2"). */
const NUMBER_ABBREVIATIONS: ReadonlySet<string> = new Set(
  "no nr fig figs vol p pp ch sec eq ver v art".split(" "),
);

/** Splits text into trimmed sentences with offsets into `text`. */
export function splitSentences(text: string): Sentence[] {
  return markdownBlocks(text).flatMap((block) =>
    block.kind === "prose" || block.kind === "item"
      ? splitBlock(text, block)
      : sentenceAt(text, block) ?? []
  );
}

/** The text blocks of a markdown document, in order, without fences, front matter and rules. */
function markdownBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const skip = frontMatterLength(text);
  let open: Block | null = null;
  const flush = () => {
    if (open) blocks.push(open);
    open = null;
  };
  for (const line of scanLines(text)) {
    const lineEnd = line.start + line.text.length;
    if (line.inFence || line.start < skip || THEMATIC_BREAK.test(line.text)) {
      flush();
      continue;
    }
    const quote = QUOTE.exec(line.text)?.[0].length ?? 0;
    const rest = line.text.slice(quote);
    const from = line.start + quote;
    if (rest.trim() === "") {
      flush();
      continue;
    }
    const heading = HEADING.exec(rest);
    if (heading) {
      flush();
      const body = rest.replace(CLOSING_HASHES, "");
      blocks.push({ start: from + heading[0].length, end: from + body.length, kind: "heading" });
      continue;
    }
    if (/^[ \t]*\|/.test(rest)) {
      flush();
      if (!TABLE_RULE.test(rest)) blocks.push({ start: from, end: lineEnd, kind: "row" });
      continue;
    }
    const item = ITEM.exec(rest);
    if (item) {
      flush();
      open = { start: from + item[0].length, end: lineEnd, kind: "item" };
    } else if (open) {
      // A soft-wrapped line continues its paragraph or list item.
      (open as Block).end = lineEnd;
    } else {
      open = { start: from, end: lineEnd, kind: "prose" };
    }
  }
  flush();
  return blocks;
}

/** Splits one paragraph or list item at sentence ends. */
function splitBlock(text: string, block: Block): Sentence[] {
  const out: Sentence[] = [];
  const add = (start: number, end: number) => {
    const sentence = sentenceAt(text, { start, end, kind: block.kind });
    if (sentence) out.push(sentence);
  };
  let from = block.start;
  for (let i = block.start; i < block.end; i++) {
    if (!TERMINATORS.includes(text[i])) continue;
    let j = i;
    while (j < block.end && TERMINATORS.includes(text[j])) j++;
    const cjk = CJK_TERMINATORS.includes(text[j - 1]);
    while (j < block.end && CLOSERS.includes(text[j])) j++;
    if (j < block.end && !cjk && !/\s/.test(text[j])) {
      i = j - 1;
      continue;
    }
    if (
      text[j - 1] !== "!" && text[j - 1] !== "?" && !cjk &&
      !stopEnds(text, { dot: i, after: j, end: block.end })
    ) {
      i = j - 1;
      continue;
    }
    const marker = { at: j, end: block.end };
    for (let m = citationLength(text, marker); m > 0; m = citationLength(text, marker)) {
      marker.at += m;
    }
    j = marker.at;
    add(from, j);
    from = j;
    i = j - 1;
  }
  add(from, block.end);
  return out;
}

/** Whether the full stop(s) at `dot` (closers up to `after`) end a sentence. */
function stopEnds(text: string, at: { dot: number; after: number; end: number }): boolean {
  const { dot, end } = at;
  let next = at.after;
  while (next < end && /\s/.test(text[next])) next++;
  if (next >= end) return true;
  // "e.g. this", "etc. and so on", "... and then": a lowercase continuation is the same sentence.
  if (/\p{Ll}/u.test(text[next])) return false;
  let w = dot;
  while (w > 0 && /[\p{L}.]/u.test(text[w - 1])) w--;
  const word = text.slice(w, dot).toLowerCase();
  if (ABBREVIATIONS.has(word)) return false;
  if (NUMBER_ABBREVIATIONS.has(word) && /\d/.test(text[next])) return false;
  const token = text.slice(w, dot);
  // Initials ("J. R. Tolkien") and dotted abbreviations ("U.S.A. Today") keep going.
  if (/^\p{Lu}$/u.test(token) && token !== "I" && /\p{Lu}/u.test(text[next])) return false;
  return !/^(?:\p{L}\.)+\p{L}$/u.test(token);
}

/** Length of a citation marker (with its leading blanks) at `at`, before `end`, or 0. */
function citationLength(text: string, range: { at: number; end: number }): number {
  // A marker is short: looking at a small window keeps long paragraphs linear.
  const window = text.slice(range.at, Math.min(range.end, range.at + MARKER_WINDOW));
  return CITATION.exec(window)?.[0].length ?? 0;
}

/** The trimmed range as a sentence, or null when it has no letter or digit. */
function sentenceAt(text: string, block: Block): Sentence | null {
  let { start, end } = block;
  // A sentence starting on a quoted continuation line starts after its "> " marker.
  while (
    start < end && (/\s/.test(text[start]) || (text[start] === ">" && atLineStart(text, start)))
  ) {
    start++;
  }
  while (end > start && /\s/.test(text[end - 1])) end--;
  const body = text.slice(start, end);
  return /[\p{L}\p{N}]/u.test(body) ? { text: body, start, end, kind: block.kind } : null;
}

/** Whether only blanks and quote markers precede `at` on its line. */
function atLineStart(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0 && text[i] !== "\n"; i--) {
    if (text[i] !== ">" && text[i] !== " " && text[i] !== "\t") return false;
  }
  return true;
}

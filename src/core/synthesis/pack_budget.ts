/**
 * @module Fitting a pack's excerpts into its token budget: repeats and the overlap between
 * windows of one section are dropped, excerpts go in whole while they fit, and the first that does
 * not is cut at a word boundary; the whole is counted again so it never exceeds the budget.
 */
import { overlap, terms } from "../text/terms.ts";
import type { TokenCounter } from "../text/token_count.ts";

/** One candidate excerpt. */
export interface Excerpt {
  document_id: string;
  path: string;
  title: string;
  heading: string[];
  text: string;
  chunk_id?: string;
}

/** An excerpt sharing this much of its words with one already packed adds nothing. */
const REPEAT = 0.8;
/** Below this many tokens left, a cut excerpt is not worth its heading. */
const MIN_CUT_TOKENS = 40;
/** Candidates tried after the first that did not fit whole. */
const AFTER_FULL = 20;
/** Words compared when trimming the overlap between two windows of one section. */
const OVERLAP_SCAN_WORDS = 80;

/** Packs excerpts in order while they fit; the first that does not fit whole is cut to fit. */
export function fitExcerpts(
  header: string,
  excerpts: Excerpt[],
  o: { counter: TokenCounter; budget: number },
): { text: string; tokens: number; truncated: boolean; used: Excerpt[] } {
  const blocks: string[] = [header];
  const used: Excerpt[] = [];
  let tokens = o.counter.count(header);
  let truncated = false;
  let tried = 0;
  let lastHeading = "";
  for (const e of excerpts) {
    if (truncated && ++tried > AFTER_FULL) break;
    const heading = headingOf(e);
    const head = heading === lastHeading ? "" : `${heading}\n`;
    const block = `${head}${e.text.trim()}\n\n`;
    const cost = o.counter.count(block);
    if (tokens + cost <= o.budget) {
      blocks.push(block);
      used.push(e);
      tokens += cost;
      lastHeading = heading;
      continue;
    }
    truncated = true;
    const room = o.budget - tokens - o.counter.count(head);
    if (room < MIN_CUT_TOKENS) continue;
    const cut = cutToFit(e.text.trim(), room - 1, o.counter);
    if (!cut) continue;
    const piece = `${head}${cut}\n\n`;
    blocks.push(piece);
    used.push(e);
    tokens += o.counter.count(piece);
    lastHeading = heading;
  }
  // Counting the whole can differ from the sum of its parts where they meet; never exceed.
  let text = blocks.join("").trimEnd() + "\n";
  let total = o.counter.count(text);
  while (total > o.budget && blocks.length > 1) {
    blocks.pop();
    used.pop();
    truncated = true;
    text = blocks.join("").trimEnd() + "\n";
    total = o.counter.count(text);
  }
  return { text, tokens: total, truncated, used };
}

/** The longest prefix of `text` (cut at a word boundary, marked "…") within `room` tokens. */
function cutToFit(text: string, room: number, counter: TokenCounter): string | null {
  let lo = 0;
  let hi = text.length;
  let best: string | null = null;
  // A token is rarely longer than 8 characters: start the search near the answer.
  hi = Math.min(hi, room * 8);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const candidate = `${text.slice(0, mid).replace(/\s+\S*$/, "").trimEnd()} …`;
    if (counter.count(candidate) <= room) {
      if (candidate.length > 2) best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Excerpts in order, without those another one already says, and without window overlaps. */
export function dedupeExcerpts(excerpts: Excerpt[]): Excerpt[] {
  const kept: { e: Excerpt; words: string[] }[] = [];
  const chunks = new Set<string>();
  for (const e of excerpts) {
    if (e.chunk_id && chunks.has(e.chunk_id)) continue;
    if (e.chunk_id) chunks.add(e.chunk_id);
    let text = e.text;
    for (const k of kept) {
      if (k.e.document_id === e.document_id) text = withoutOverlap(k.e.text, text);
    }
    const words = terms(text);
    if (words.length === 0) continue;
    if (kept.some((k) => overlap(words, k.words) >= REPEAT)) continue;
    kept.push({ e: { ...e, text }, words });
  }
  return kept.map((k) => k.e);
}

/** `next` without the words it repeats from the end of `previous` (overlapping windows). */
function withoutOverlap(previous: string, next: string): string {
  const a = previous.split(/\s+/).slice(-OVERLAP_SCAN_WORDS);
  const b = next.split(/\s+/);
  for (let k = Math.min(a.length, b.length); k >= 5; k--) {
    if (a.slice(-k).join(" ") === b.slice(0, k).join(" ")) return b.slice(k).join(" ");
  }
  return next;
}

/** The line heading an excerpt in the pack: its path and heading path. */
function headingOf(e: Excerpt): string {
  const where = e.heading.length ? ` › ${e.heading.join(" › ")}` : "";
  return `## ${e.path}${where}`;
}

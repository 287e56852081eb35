/**
 * @module Typo tolerance: a query word that matches nothing in the index is read as the nearest
 * word the index holds, as search engines do for mistyped queries ("funraiser" → "fundraiser").
 *
 * The rules are Meilisearch's defaults (docs: "typo tolerance"): words of 5 to 8 letters may have
 * one typo, longer ones two, shorter ones none; and, as Lucene's FuzzyQuery with a prefix length
 * of 3, the first three letters must be right: fts5vocab reads each word's chunk list as it lists
 * the word (about 12 µs a word at 100k notes), so the word list is read only where those letters
 * start words, and at most MAX_WORDS_READ of them (3 ms). Distance is the optimal string
 * alignment distance (Damerau 1964: insertions, deletions, substitutions and adjacent
 * transpositions), so "fundriaser" is one typo away. Among the nearest words the one in the most
 * chunks wins. A word the index holds is never corrected, and only words that match nothing are
 * looked up, so a search with no typo pays one seek per word.
 */
import type { Prepares } from "../database.ts";
import { editDistance } from "../../../core/text/edit_distance.ts";
import { fold } from "../../shared/search/term_match.ts";

/** Letters that must be right (Lucene's prefix length). */
const PREFIX_LENGTH = 3;
/** The most words of the word list compared with one mistyped word. */
const MAX_WORDS_READ = 256;

/** The most typos allowed in a word of `length` letters. */
function allowedTypos(length: number): number {
  return length >= 9 ? 2 : length >= 5 ? 1 : 0;
}

/** Whether any chunk (of any brain) holds the word. */
export function indexHolds(db: Prepares, ftsWord: string): boolean {
  return db.prepare("SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1").get(ftsWord) !==
    undefined;
}

/** The word of the index nearest to `word` within its allowed typos, or null. */
export function correction(db: Prepares, word: string): string | null {
  const folded = fold(word);
  const typos = allowedTypos([...folded].length);
  if (typos === 0) return null;
  const start = [...folded].slice(0, PREFIX_LENGTH).join("");
  const rows = db.prepare(
    "SELECT term, doc FROM chunks_words_vocab WHERE term >= ? AND term < ? LIMIT ?",
  ).all(start, start + "\u{10FFFF}", MAX_WORDS_READ) as { term: string; doc: number }[];
  let best: { term: string; distance: number; doc: number } | null = null;
  for (const { term, doc } of rows) {
    if (Math.abs(term.length - folded.length) > typos) continue;
    const distance = editDistance(folded, term, { transpositions: true, limit: typos });
    if (distance > typos) continue;
    if (!best || distance < best.distance || (distance === best.distance && doc > best.doc)) {
      best = { term, distance, doc };
    }
  }
  return best?.term ?? null;
}

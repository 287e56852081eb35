/**
 * @module Which query terms a candidate chunk holds, and where, found in JavaScript the way the
 * index's tokenizer sees text: unicode61 tokens (letters, digits, marks), lowercased with
 * diacritics removed, then the Porter stemmer (Porter 1980, "An algorithm for suffix stripping";
 * the `stemmer` package gives the same stems as FTS5's `porter` tokenizer). Only the candidates
 * of one search are read, never the index, and none is tokenized whole: a native substring search
 * finds where a term's stem may start a token, and only the words there are stemmed. `termsIn`
 * answers which terms a candidate holds; `findTerms` finds every match of a returned hit, for its
 * highlights.
 */
import { stemmer } from "stemmer";
import type { QueryTerm } from "../../../core/search/query_plan.ts";

/** A query term ready to compare with tokens. */
export interface TermPattern {
  /** Stems of the term's words, in order (one for a word or prefix). */
  stems: string[];
  /** For a prefix term: its folded prefix, and the stems of the whole words it was widened to. */
  prefix?: { text: string; stems: Set<string> };
}

/** A match of term `term` at characters [start, end) of a field. */
export interface Span {
  term: number;
  start: number;
  end: number;
}

/** A character of a token (unicode61: letters, digits and combining marks). */
export const TOKEN_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** A token, as the index's tokenizer cuts text. */
export const TOKEN = /[\p{L}\p{N}\p{M}]+/u;
const TOKEN_AT_START = new RegExp(`^${TOKEN.source}`, "u");
const NON_ASCII = /[^\u0020-\u007e\t\n\r]/;
/** The longest token looked at from one place (longer runs are cut, which only misses a match). */
const MAX_TOKEN = 128;

/** A token as the index keeps it: lowercase, without diacritics (remove_diacritics 2). */
export function fold(token: string): string {
  const lower = token.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize("NFKD").replace(/\p{M}/gu, "") : lower;
}

/** The index form of a word: folded, then Porter-stemmed. */
export function indexForm(word: string): string {
  return stemmer(fold(word));
}

/** The pattern of a query term; `widened`: the whole words a prefix term was widened to. */
export function termPattern(term: QueryTerm, widened: string[] = []): TermPattern {
  if (term.kind === "prefix") {
    return {
      stems: [indexForm(term.words[0])],
      prefix: { text: fold(term.words[0]), stems: new Set(widened.map(indexForm)) },
    };
  }
  return { stems: term.words.map(indexForm) };
}

/** Whether each pattern occurs in `text`. */
export function termsIn(text: string, patterns: TermPattern[]): boolean[] {
  const folded = foldInPlace(text);
  return patterns.map((p, term) => scan(folded, p, { term, first: true }).length > 0);
}

/** Every match of the patterns in `text`, in text order; a phrase spans all its words. */
export function findTerms(text: string, patterns: TermPattern[]): Span[] {
  const folded = foldInPlace(text);
  return patterns.flatMap((p, term) => scan(folded, p, { term, first: false }))
    .sort((a, b) => a.start - b.start);
}

/**
 * Lowercase without diacritics, one code unit for one (so offsets stay those of `text`): a
 * character whose folding would change the length keeps its lowercase, or itself.
 */
function foldInPlace(text: string): string {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(text)) return lower;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c.charCodeAt(0) < 0x80) {
      out += c.toLowerCase();
      continue;
    }
    const l = c.toLowerCase();
    const base = l.length === 1 ? l.normalize("NFKD")[0] : c;
    out += base.length === 1 ? base : c;
  }
  return out;
}

/**
 * The matches of one pattern (query term `o.term`) in folded text, or only the first with
 * `o.first`. Each place where its first word's stem (but its last letter, which stemming may
 * change: happy → happi) starts a token is a candidate, found by a native substring search; only
 * the words there are stemmed.
 */
function scan(folded: string, p: TermPattern, o: { term: number; first: boolean }): Span[] {
  const needle = p.prefix ? p.prefix.text : p.stems[0].slice(0, Math.max(1, p.stems[0].length - 1));
  const spans: Span[] = [];
  if (needle === "") return spans;
  const length = p.prefix ? 1 : p.stems.length;
  for (let at = folded.indexOf(needle); at !== -1; at = folded.indexOf(needle, at + 1)) {
    if (at > 0 && TOKEN_CHAR.test(folded[at - 1])) continue;
    let end = at;
    let tokenEnd = at;
    let words = 0;
    while (words < length) {
      const token = TOKEN_AT_START.exec(folded.slice(end, end + MAX_TOKEN))?.[0];
      if (!token) break;
      const ok = p.prefix
        ? token.startsWith(p.prefix.text) || p.prefix.stems.has(stemmer(token))
        : stemmer(token) === p.stems[words];
      if (!ok) break;
      words++;
      tokenEnd = end + token.length;
      end = tokenEnd;
      while (end < folded.length && !TOKEN_CHAR.test(folded[end])) end++;
    }
    if (words < length) continue;
    spans.push({ term: o.term, start: at, end: tokenEnd });
    if (o.first) break;
    at = tokenEnd - 1;
  }
  return spans;
}

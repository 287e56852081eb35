/**
 * @module Turns arbitrary user text into a safe FTS5 MATCH expression.
 *
 * Every term is emitted as a double-quoted string, so FTS5 operators (AND, OR, NOT, NEAR), column
 * filters (`title:`), parentheses and `^` in user text are literal words, never syntax. Only a
 * trailing `*` on a word keeps its meaning (prefix search); a double-quoted span stays a phrase.
 * The search widens a prefix term with the whole words it starts (see `withWords`).
 */

/** At most this many terms reach FTS5, which bounds query cost for pathological input. */
export const MAX_TERMS = 32;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Quoted terms and phrases of `text`, or an empty list when nothing is searchable. */
export function ftsTerms(text: string): string[] {
  const terms: string[] = [];
  const push = (words: string[], prefix: boolean) => {
    if (words.length === 0 || terms.length >= MAX_TERMS) return;
    terms.push(`"${words.join(" ")}"${prefix && words.length === 1 ? "*" : ""}`);
  };
  const parts = text.split('"');
  parts.forEach((part, i) => {
    // Odd parts sit between double quotes (an unbalanced last quote counts as plain text).
    const quoted = i % 2 === 1 && i < parts.length - 1;
    if (quoted) {
      push(part.match(WORD) ?? [], false);
      return;
    }
    for (const raw of part.split(/\s+/)) {
      push(raw.match(WORD) ?? [], raw.endsWith("*"));
    }
  });
  return terms;
}

/** The word of a one-word prefix term (`"runn"*` → `runn`), else null. */
export function prefixWord(term: string): string | null {
  return /^"([^"\s]+)"\*$/.exec(term)?.[1] ?? null;
}

/** A prefix term widened with whole words it starts: `("runn"* OR "running")`. */
export function withWords(term: string, words: string[]): string {
  if (words.length === 0) return term;
  return `(${[term, ...words.map((w) => `"${w.replaceAll('"', '""')}"`)].join(" OR ")})`;
}

/**
 * Joins terms into an all-terms (`AND`) or any-term (`OR`) match expression, or null when empty.
 * `AND` is explicit: FTS5 rejects an implicit AND next to a parenthesised group.
 */
export function ftsExpression(terms: string[], mode: "and" | "or"): string | null {
  if (terms.length === 0) return null;
  return terms.join(mode === "and" ? " AND " : " OR ");
}

/**
 * English function words. In an any-term fallback they match nearly every chunk, so a question
 * like "what did we decide about the launch" would rank the whole brain; they are dropped there.
 */
const STOPWORDS = new Set(
  ("a about above after again against all am an and any are as at be because been before being below between both " +
    "but by can could did do does doing down during each few for from further had has have having he her here hers " +
    "him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our " +
    "ours out over own same she should so some such than that the their theirs them then there these they this those " +
    "through to too under until up very was we were what when where which while who whom why will with would you " +
    "your yours").split(" "),
);

/** The terms without single-word function words, or all of them when nothing else is left. */
export function withoutStopwords(terms: string[]): string[] {
  const kept = terms.filter((t) => {
    const word = /^"([^"\s]+)"$/.exec(t)?.[1];
    return word === undefined || !STOPWORDS.has(word.toLowerCase());
  });
  return kept.length > 0 ? kept : terms;
}

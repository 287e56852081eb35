/**
 * @module Query terms (core/query_plan.ts) as a safe FTS5 MATCH expression.
 *
 * Every term is emitted as a double-quoted string, so FTS5 operators (AND, OR, NOT, NEAR), column
 * filters (`title:`), parentheses and `^` in user text are literal words, never syntax. Only a
 * trailing `*` on a word keeps its meaning (prefix search); a double-quoted span stays a phrase.
 * The search itself never sends FTS5 a prefix query: FTS5's porter tokenizer stems the prefix too
 * (`plis*` becomes `pli*` and finds "pliant"), so chunk_search.ts searches the whole words the
 * prefix starts instead (`ftsWord`, `anyOf`).
 */
import { MAX_SEARCHED_TERMS, planQuery, type QueryTerm } from "../../../core/search/query_plan.ts";

/** A term as an FTS5 string: `"word"`, `"two words"` or `"prefix"*`. */
export function ftsTerm(term: QueryTerm): string {
  const quoted = `"${term.words.join(" ").replaceAll('"', '""')}"`;
  return term.kind === "prefix" ? `${quoted}*` : quoted;
}

/**
 * Every term of `text` (function words too) as FTS5 strings, or an empty list; at most
 * MAX_SEARCHED_TERMS, which bounds query cost for pathological input.
 */
export function ftsTerms(text: string): string[] {
  return planQuery(text).terms.slice(0, MAX_SEARCHED_TERMS).map(ftsTerm);
}

/** One whole word as an FTS5 string. */
export function ftsWord(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/** Alternatives as one FTS5 group: `("a" OR "b")`, the one alone, or null when there are none. */
export function anyOf(alternatives: string[]): string | null {
  if (alternatives.length <= 1) return alternatives[0] ?? null;
  return `(${alternatives.join(" OR ")})`;
}

/**
 * Joins terms into an all-terms (`AND`) or any-term (`OR`) match expression, or null when empty.
 * `AND` is explicit: FTS5 rejects an implicit AND next to a parenthesised group.
 */
export function ftsExpression(terms: string[], mode: "and" | "or"): string | null {
  if (terms.length === 0) return null;
  return terms.join(mode === "and" ? " AND " : " OR ");
}

/**
 * @module Query terms (core/query_plan.ts) as PostgreSQL `tsquery`s, with no user text ever parsed
 * as query syntax (docs/architecture.md#postgresql-search).
 *
 * The words of a term (runs of letters, digits and marks: the plan has already dropped every
 * operator, quote, colon and parenthesis) go to the server only as a bind parameter of
 * `phraseto_tsquery('engram', $1)`, which reads no operators at all: it normalises the words with
 * the index's own configuration (unaccent, stemming) and joins them with `<->`, so a word is a
 * lexeme and a quoted span a phrase. `to_tsquery` and `websearch_to_tsquery` are never called:
 * the first parses `&`, `|`, `!`, `<->`, `:*` and weights, the second its own `or`, `-` and quotes,
 * so user text there would be syntax. The server's own output of each term (`'new' <-> 'york'`,
 * properly quoted) is what this module combines with `&` and `|` into the expression a search
 * matches: nothing but that output and these two operators is ever read back as a `tsquery`.
 */
import type { QueryTerm } from "../../../core/search/query_plan.ts";

/** A `tsquery` as the server printed it; the empty string when the words gave no lexeme. */
export type TsqueryText = string;

/** The text a term's `phraseto_tsquery` is asked for: its words, space-separated. */
export function termText(term: QueryTerm): string {
  return term.words.join(" ");
}

/**
 * Alternatives as one group, `(a) | (b)`, the one alone, or null when none has a lexeme (a term
 * whose words the server's parser drops, such as a lone emoji, matches nothing).
 */
export function anyOf(alternatives: readonly TsqueryText[]): TsqueryText | null {
  const present = alternatives.filter((a) => a !== "");
  if (present.length === 0) return null;
  return present.length === 1 ? present[0] : present.map((a) => `(${a})`).join(" | ");
}

/** Every part required, `(a) & (b)`, or null when there are none. */
export function allOf(parts: readonly TsqueryText[]): TsqueryText | null {
  const present = parts.filter((p) => p !== "");
  if (present.length === 0) return null;
  return present.length === 1 ? present[0] : present.map((p) => `(${p})`).join(" & ");
}

/**
 * The match expressions to try in turn, each a list of terms to OR (SQLite's chunk_search.ts does
 * the same with FTS5 strings). Quoted terms must match and the others then only rank; a query of
 * function words alone ("what is the") matches nearly everything word by word, so all of them
 * first, then any.
 */
export function attempts(
  searched: readonly QueryTerm[],
  terms: readonly (TsqueryText | null)[],
  onlyFunction: boolean,
): TsqueryText[][] {
  const each = terms.filter((t): t is TsqueryText => t !== null);
  if (each.length === 0) return [];
  const required = terms.filter((t, i): t is TsqueryText => t !== null && !!searched[i].required);
  if (required.length > 0) {
    const must = allOf(required)!;
    return [[required.length < each.length ? `(${must}) & (${anyOf(each)})` : must]];
  }
  return onlyFunction && each.length > 1 ? [[allOf(each)!], each] : [each];
}

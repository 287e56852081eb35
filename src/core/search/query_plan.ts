/**
 * @module Query understanding, before any index is asked: user text becomes terms (words, quoted
 * phrases, `word*` prefixes), each with a role — a content word, a name, or a function word.
 *
 * A question is mostly function words ("what did … do with her …"); they match nearly every note,
 * so they are not searched unless nothing else is left (stop-word removal, Luhn 1958; the list is
 * the Snowball English stop list, see text/stopwords.ts). A capitalised word inside the text (not
 * the first of a sentence) or a word in capitals is taken as a name: the ranking favours notes
 * whose title carries it, since a title says whom or what a note is about. Text in double quotes
 * is required: results hold it, as in web search.
 *
 * Tokens follow FTS5's unicode61 tokenizer: runs of letters, digits and combining marks; any other
 * character separates words. Backend-neutral: an index turns terms into its own query syntax.
 */
import { ENGLISH_STOP_WORDS } from "../text/stopwords.ts";

/** At most this many terms are searched, which bounds query cost for pathological input. */
export const MAX_SEARCHED_TERMS = 32;

/** How a term matches: one word, words in this order, or words starting with a prefix. */
export type TermKind = "word" | "phrase" | "prefix";

/** What a term is to the ranking. */
export type TermRole = "content" | "name" | "function";

/** One term of a query. */
export interface QueryTerm {
  /** The words as typed; a phrase has several. */
  words: string[];
  kind: TermKind;
  role: TermRole;
  /** Typed in double quotes: a result must hold it. */
  required?: boolean;
}

/** A query understood. */
export interface QueryPlan {
  /** Every distinct term, in the order typed. */
  terms: QueryTerm[];
  /**
   * The terms to search and rank by: the content words and names, or, when the text has only
   * function words, those; at most MAX_SEARCHED_TERMS.
   */
  searched: QueryTerm[];
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** A lone `'s` after a word ("Melanie's") is the possessive, not a word. */
const POSSESSIVE = /['’]s$/iu;

/** The terms of `text` and which of them are searched. */
export function planQuery(text: string): QueryPlan {
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  const add = (words: string[], kind: TermKind, role: TermRole, required = false) => {
    if (words.length === 0) return;
    const key = `${kind}\u0000${words.join(" ").toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    terms.push({ words, kind, role, ...(required ? { required } : {}) });
  };
  const parts = text.split('"');
  let sentenceStart = true;
  parts.forEach((part, i) => {
    // Odd parts sit between double quotes (an unbalanced last quote counts as plain text).
    if (i % 2 === 1 && i < parts.length - 1) {
      const words = part.match(WORD) ?? [];
      // Quoted text is searched whatever its words: the user asked for it, as written.
      const asTyped = roleOf(words, false);
      const role = asTyped === "function" ? "content" : asTyped;
      add(words, words.length > 1 ? "phrase" : "word", role, true);
      sentenceStart = false;
      return;
    }
    for (const token of part.split(/\s+/)) {
      if (token === "") continue;
      const words = token.replace(POSSESSIVE, "").match(WORD) ?? [];
      if (words.length === 1 && token.endsWith("*")) add(words, "prefix", roleOf(words, false));
      else if (words.length > 0) {
        add(words, words.length > 1 ? "phrase" : "word", roleOf(words, !sentenceStart));
      }
      if (words.length > 0 || /[.!?]/.test(token)) sentenceStart = /[.!?:]["')\]]*$/.test(token);
    }
  });
  const meaningful = terms.filter((t) => t.role !== "function");
  const searched = (meaningful.length > 0 ? meaningful : terms).slice(0, MAX_SEARCHED_TERMS);
  return { terms, searched };
}

/** A function word is one of the stop list or a single letter; a name is capitalised inside a sentence, or in capitals. */
function roleOf(words: string[], midSentence: boolean): TermRole {
  if (words.every(isFunctionWord)) return "function";
  if (words.length !== 1) return "content";
  const [word] = words;
  const capitalised = /^\p{Lu}/u.test(word);
  const capitals = word.length > 1 && /^[\p{Lu}\p{N}]+$/u.test(word) && /\p{Lu}/u.test(word);
  return (capitalised && midSentence) || capitals ? "name" : "content";
}

/** Whether a word is an English function word (or a lone letter, like the `s` of `it's`). */
export function isFunctionWord(word: string): boolean {
  const w = word.toLowerCase();
  return ENGLISH_STOP_WORDS.has(w) || /^\p{L}$/u.test(w);
}

/**
 * @module Counting tokens for budgets (memory_pack): OpenAI's cl100k_base encoding through the
 * gpt-tokenizer package, exact for GPT-4-era models and within a few percent of other BPE
 * tokenizers on English prose (Claude's counts run somewhat higher; budgets leave room for
 * that). The encoding's tables take ~50 MB, so they load on first use, never at start-up.
 */

/** Counts the tokens of a text. */
export interface TokenCounter {
  /** The encoding's name, for results and docs. */
  readonly name: string;
  count(text: string): number;
}

/** The tokenizer name reported with counts. */
const TOKENIZER = "cl100k_base";

/** Loads the tokenizer (the module system keeps it after the first call). */
export async function loadTokenCounter(): Promise<TokenCounter> {
  const { countTokens } = await import("gpt-tokenizer/encoding/cl100k_base");
  return { name: TOKENIZER, count: (text) => (text === "" ? 0 : countTokens(text)) };
}

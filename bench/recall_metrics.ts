/**
 * @module Recall at k for ranked retrieval: per question, whether the top k results hold a unit of
 * its evidence (hit rate, "recall_any@k" in the LongMemEval / MemPalace sense), and the share of
 * its evidence units found there ("recall_all"-style fraction), averaged over questions.
 */

/** The cut-offs reported. */
export const CUTOFFS = [1, 5, 10] as const;

/** One question's outcome: the units it wanted, and the units returned in rank order. */
export interface Ranked {
  wanted: readonly string[];
  /** Units of the returned results, best first; repeats (several chunks of one unit) kept. */
  got: readonly string[];
}

/** Averages over a set of questions, per cut-off. */
export interface RecallFigures {
  questions: number;
  /** Share of questions with a wanted unit among the top k results. */
  any: Record<number, number>;
  /** Mean share of a question's wanted units among the top k results. */
  fraction: Record<number, number>;
}

/** Recall figures of `results` at each of CUTOFFS. */
export function recallAt(results: readonly Ranked[]): RecallFigures {
  const any: Record<number, number> = {};
  const fraction: Record<number, number> = {};
  for (const k of CUTOFFS) {
    let hits = 0;
    let share = 0;
    for (const r of results) {
      const top = new Set(r.got.slice(0, k));
      const found = r.wanted.filter((u) => top.has(u)).length;
      if (found > 0) hits++;
      share += found / Math.max(1, r.wanted.length);
    }
    any[k] = hits / Math.max(1, results.length);
    fraction[k] = share / Math.max(1, results.length);
  }
  return { questions: results.length, any, fraction };
}

/** A recall as printed: three decimals. */
export function fmt(x: number): string {
  return x.toFixed(3);
}

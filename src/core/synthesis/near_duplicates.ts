/**
 * @module Recognising an item already found ("Postgres 16 upgrade on Sunday" in a summary
 * section after "Agreed: the upgrade to Postgres 16 happens on Sunday"): the shorter of two
 * items' words mostly found in the other. Long texts compare each item with the recent ones
 * only, so a 5 MB transcript stays linear.
 */
import { terms } from "../text/terms.ts";

/** Share of the shorter item's words the longer must hold for the two to be one. */
const SAME = 0.7;
/** Items compared against when many were kept (a repeat is almost always near its original). */
const WINDOW = 300;

/** Keeps track of kept items; `isRepeat` answers for a new one and remembers it when new. */
export class NearDuplicates {
  #kept: Set<string>[] = [];
  #exact = new Set<string>();

  /** Whether `text` repeats a kept item; a new one is kept. Texts without words are repeats. */
  isRepeat(text: string): boolean {
    const words = terms(text);
    if (words.length === 0) return true;
    const key = [...new Set(words)].sort().join(" ");
    if (this.#exact.has(key)) return true;
    const set = new Set(words);
    const recent = this.#kept.length > WINDOW ? this.#kept.slice(-WINDOW) : this.#kept;
    for (const other of recent) {
      const [short, long] = set.size <= other.size ? [set, other] : [other, set];
      if (shared(short, long) / short.size >= SAME) return true;
    }
    this.#exact.add(key);
    this.#kept.push(set);
    return false;
  }
}

/** How many words of `a` are also in `b`. */
function shared(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const word of a) if (b.has(word)) n++;
  return n;
}

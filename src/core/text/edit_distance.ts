/** @module Edit distance (Levenshtein, or with transpositions), and the names nearest to a mistyped one. */

/**
 * The number of single-character insertions, deletions and substitutions from `a` to `b` —
 * Levenshtein distance; with `transpositions`, two adjacent letters swapped count as one edit
 * (optimal string alignment distance, Damerau 1964). With `limit`, stops as soon as the distance
 * must exceed it and returns `limit + 1`.
 */
export function editDistance(
  a: string,
  b: string,
  o: { transpositions?: boolean; limit?: number } = {},
): number {
  const limit = o.limit ?? Infinity;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let lowest = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (o.transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, before[j - 2] + 1);
      }
      row[j] = d;
      lowest = Math.min(lowest, d);
    }
    if (lowest > limit) return limit + 1;
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * Up to `limit` of `names` nearest to `wanted`: those containing it or contained in it first, then
 * by edit distance (case ignored).
 */
export function nearestNames(wanted: string, names: readonly string[], limit = 3): string[] {
  const w = wanted.toLowerCase();
  return names
    .map((n) => {
      const l = n.toLowerCase();
      const contains = l.includes(w) || w.includes(l);
      return { n, score: contains ? 0 : editDistance(w, l) };
    })
    .sort((a, b) => a.score - b.score || a.n.localeCompare(b.n))
    .slice(0, limit)
    .map((x) => x.n);
}

/**
 * The one of `names` that `wanted` was most likely meant as — containing it or contained in it, or
 * within a few edits (a third of its length, at least 2) — else undefined: a typo gets a suggestion,
 * an unrelated word none.
 */
export function meantName(wanted: string, names: readonly string[]): string | undefined {
  const [near] = nearestNames(wanted, names, 1);
  if (near === undefined) return undefined;
  const w = wanted.toLowerCase(), n = near.toLowerCase();
  const close = n.includes(w) || w.includes(n) ||
    editDistance(w, n) <= Math.max(2, Math.floor(w.length / 3));
  return close ? near : undefined;
}

/** @module Reciprocal rank fusion: combining ranked lists by rank, not by incomparable scores. */

/** The usual RRF constant: damps the weight of the very top ranks. */
export const RRF_K = 60;

/** A ranked list to fuse, with its weight. */
export interface RankedList<T> {
  name: string;
  items: T[];
  weight?: number;
}

/** One fused item: its fused score and its 1-based rank in each list that had it. */
export interface Fused<T> {
  item: T;
  score: number;
  ranks: Record<string, number>;
}

/**
 * Fuses lists by `Σ weight / (RRF_K + rank)`; items are matched by `key`. The first list's
 * copy of an item is kept. Best first; ties keep first-list order.
 */
export function fuseRanks<T>(lists: RankedList<T>[], key: (item: T) => string): Fused<T>[] {
  const fused = new Map<string, Fused<T> & { order: number }>();
  let order = 0;
  for (const list of lists) {
    list.items.forEach((item, i) => {
      const k = key(item);
      let entry = fused.get(k);
      if (!entry) {
        entry = { item, score: 0, ranks: {}, order: order++ };
        fused.set(k, entry);
      }
      entry.score += (list.weight ?? 1) / (RRF_K + i + 1);
      entry.ranks[list.name] = i + 1;
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score, ranks }) => ({ item, score, ranks }));
}

/** @module Latency percentiles as the reports show them: nearest rank, in milliseconds to 0.01. */

/** The nearest-rank percentile `p` (0–1) of ascending `sorted` values; 0 when there are none. */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return roundMs(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]);
}

/** Milliseconds rounded to two decimals. */
export function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** @module Percentiles and number formatting for the benchmark report. */

/** Summary of a latency sample in milliseconds. */
export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The q-quantile (0..1) of sorted values, linearly interpolated between closest ranks. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The median of unsorted values. */
export function median(values: readonly number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/** Mean, p50, p90, p99 and max of unsorted values. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    mean,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** Milliseconds with precision that suits the magnitude: 0.123, 1.23, 12.3, 123. */
export function ms(v: number): string {
  if (!Number.isFinite(v)) return "n/a";
  if (v < 1) return v.toFixed(3);
  if (v < 10) return v.toFixed(2);
  if (v < 100) return v.toFixed(1);
  return v.toFixed(0);
}

/** A document count as "10k" / "100k" / "2500". */
export function sizeLabel(n: number): string {
  return n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/** A plain-text table with left-aligned columns, the header underlined. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join(
    "\n",
  );
}

/** The same table as GitHub markdown. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

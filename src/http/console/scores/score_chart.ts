/**
 * @module A score series drawn as inline SVG on the server: calls per span as bars, the failed ones
 * stacked on top (dashed as well as coloured, so not told by colour alone), latency p95 as a line.
 * Colours come from the stylesheet by class — the CSP allows no inline style — and every number is
 * also in the chart's label, each bar's tooltip and a table under it.
 */
import { markup, type SafeHtml } from "../html.ts";
import type { ScoreLine, ScorePoint } from "./score_series.ts";

const W = 560;
const H = 140;
const LEFT = 40;
const RIGHT = 56;
const TOP = 10;
const BOTTOM = 22;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;

/** `2026-05-01 12:00`. */
function shortTime(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

/** Coordinates rounded to a tenth, which keeps the markup short. */
function r1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** One line of words for a series: what the chart shows, for its label. */
export function scoreSummary(line: ScoreLine): string {
  const first = line.points[0];
  const last = line.points[line.points.length - 1];
  return `${line.calls} call(s), ${line.errors} failed, success ${
    percent(line.success_rate)
  }, latency p95 ${line.p95_ms} ms, from ${shortTime(first?.start ?? "")} to ${
    shortTime(last?.end ?? "")
  } in ${line.points.length} spans`;
}

function bar(p: ScorePoint, o: { i: number; step: number; maxCalls: number }): SafeHtml {
  const width = Math.max(1, o.step * 0.7);
  const x = LEFT + o.i * o.step + (o.step - width) / 2;
  const okH = ((p.calls - p.errors) / o.maxCalls) * PLOT_H;
  const errH = (p.errors / o.maxCalls) * PLOT_H;
  const base = TOP + PLOT_H;
  const tip = `${shortTime(p.start)} to ${
    shortTime(p.end)
  }: ${p.calls} call(s), ${p.errors} failed${p.calls ? `, p95 ${p.p95_ms} ms` : ""}`;
  return markup`<g><title>${tip}</title>${
    okH > 0
      ? markup`<rect class="ok" x="${r1(x)}" y="${r1(base - okH)}" width="${r1(width)}" height="${
        r1(okH)
      }"/>`
      : ""
  }${
    errH > 0
      ? markup`<rect class="err" x="${r1(x)}" y="${r1(base - okH - errH)}" width="${
        r1(width)
      }" height="${r1(errH)}"/>`
      : ""
  }</g>`;
}

/** The chart of one series, with `label` naming what it is of (a server, a capability). */
export function scoreChart(line: ScoreLine, o: { label: string }): SafeHtml {
  const n = Math.max(1, line.points.length);
  const step = PLOT_W / n;
  const maxCalls = Math.max(1, ...line.points.map((p) => p.calls));
  const maxP95 = Math.max(1, ...line.points.map((p) => p.p95_ms));
  const latency = line.points.flatMap((p, i) =>
    p.calls
      ? [[r1(LEFT + i * step + step / 2), r1(TOP + PLOT_H - (p.p95_ms / maxP95) * PLOT_H)]]
      : []
  );
  const first = line.points[0];
  const last = line.points[line.points.length - 1];
  return markup`<figure class="score">
<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${o.label}: ${
    scoreSummary(line)
  }">
<line class="axis" x1="${LEFT}" y1="${TOP + PLOT_H}" x2="${LEFT + PLOT_W}" y2="${TOP + PLOT_H}"/>
<text x="${LEFT - 4}" y="${TOP + 8}" text-anchor="end">${maxCalls}</text>
<text x="${LEFT - 4}" y="${TOP + PLOT_H}" text-anchor="end">0</text>
<text class="p95-label" x="${W - 2}" y="${TOP + 8}" text-anchor="end">${maxP95} ms</text>
<text x="${LEFT}" y="${H - 6}">${shortTime(first?.start ?? "")}</text>
<text x="${LEFT + PLOT_W}" y="${H - 6}" text-anchor="end">${shortTime(last?.end ?? "")}</text>
${line.points.map((p, i) => bar(p, { i, step, maxCalls }))}
${
    latency.length > 1
      ? markup`<polyline class="p95" points="${latency.map((xy) => xy.join(",")).join(" ")}"/>`
      : ""
  }
${latency.map(([x, y]) => markup`<circle class="p95-dot" cx="${x}" cy="${y}" r="2.5"/>`)}
</svg>
<figcaption>${o.label}: ${scoreSummary(line)}</figcaption>
<details>
<summary>The numbers</summary>
<table>
<thead><tr><th scope="col">From</th><th scope="col">To</th><th scope="col">Calls</th><th scope="col">Failed</th><th scope="col">Success</th><th scope="col">p95 ms</th></tr></thead>
<tbody>${
    line.points.map((p) =>
      markup`<tr><td>${shortTime(p.start)}</td><td>${
        shortTime(p.end)
      }</td><td>${p.calls}</td><td>${p.errors}</td><td>${
        p.calls ? percent(p.success_rate) : ""
      }</td><td>${p.calls ? p.p95_ms : ""}</td></tr>`
    )
  }</tbody>
</table>
</details>
</figure>`;
}

/** The legend the charts of a page share. */
export function chartLegend(): SafeHtml {
  return markup`<p class="legend muted"><span class="key ok"></span> calls that succeeded · <span
    class="key err"></span> calls that failed (dashed) · <span class="key p95"></span> latency p95 (right scale)</p>`;
}

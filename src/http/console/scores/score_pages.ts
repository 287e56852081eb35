/**
 * @module The score sections of the upstream pages: a chart per server on the servers page, and on
 * a server's page its own chart and one per capability (tool, prompt, resource, listing), for the
 * period `?since=` names. Server and capability names are upstream text: escaped like any other.
 */
import { markup, query, type SafeHtml } from "../html.ts";
import { chartLegend, scoreChart } from "./score_chart.ts";
import type { ScoreSeries, ServerSeries } from "./score_series.ts";

/** Links to the same page over other periods. */
function periods(path: string, since: string): SafeHtml {
  const choices = [["24h", "a day"], ["7d", "a week"], ["30d", "30 days"]] as const;
  return markup`<p class="periods">Over: ${
    choices.map(([v, label], i) =>
      markup`${i ? " · " : ""}<a href="${path}${query({ since: v })}"${
        v === since ? markup` aria-current="true"` : ""
      }>${label}</a>`
    )
  }</p>`;
}

const NO_CALLS = markup`<p class="muted">No upstream calls in this period. Calls are traced when
engram reaches an upstream (<code>engram mcp call</code>, discover, compile-resource, or an exposed
tool); <code>engram mcp score</code> shows the same numbers.</p>`;

/** The servers page's scores: one chart per server. */
export function serversScores(series: ScoreSeries, o: { since: string }): SafeHtml {
  return markup`<section aria-labelledby="scores-h">
<h2 id="scores-h">Scores over time</h2>
${periods("/console/upstreams", o.since)}
${
    series.servers.length
      ? markup`${chartLegend()}${
        series.servers.map((s) => scoreChart(s, { label: `Server ${s.server}` }))
      }`
      : NO_CALLS
  }
</section>`;
}

/** A server page's scores: the server's chart and one per capability. */
export function serverScores(
  series: ServerSeries | null,
  o: { path: string; since: string },
): SafeHtml {
  return markup`<section aria-labelledby="scores-h">
<h2 id="scores-h">Scores over time</h2>
${periods(o.path, o.since)}
${
    series
      ? markup`${chartLegend()}
${scoreChart(series, { label: `Server ${series.server}` })}
<h3>By capability</h3>
${
        series.capabilities.map((c) =>
          scoreChart(c, { label: `${c.kind === "list" ? "listing" : c.kind} ${c.capability}` })
        )
      }`
      : NO_CALLS
  }
</section>`;
}

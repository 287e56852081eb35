/**
 * @module The memory pages that list: the brain picker, a brain's overview (statistics, tags,
 * latest changes), search with highlighted hits and filters, and the timeline with what can be
 * restored. Every value from the store goes through the `markup` tag, escaped.
 */
import type { Brain, BrainStats, SourcedHit, TimelineEntry } from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";
import { markup, query, type SafeHtml, seg } from "./html.ts";
import { when } from "./layout.ts";
import {
  brainOverview,
  listBrains,
  search,
  type SearchFilters,
  tagsOf,
  timeline,
} from "./memory_actions.ts";

/** The base URL of a brain's pages. */
export function brainBase(brain: Brain): string {
  return `/console/b/${seg(brain.slug)}`;
}

/** The base URL of a brain's API. */
export function brainApi(brain: Brain): string {
  return `/console/api/b/${seg(brain.slug)}`;
}

/** The events a brain's pages follow: its new versions (docs/console.md#live-updates). */
export function brainEvents(brain: Brain): string {
  return `/console/events${query({ brain: brain.slug })}`;
}

/** A document's page. */
export function docUrl(brain: Brain, id: string, o: { version?: number } = {}): string {
  return `${brainBase(brain)}/doc/${seg(id)}${query({ version: o.version })}`;
}

/** The brain picker. */
export async function brainsBody(actor: ConsoleActor): Promise<SafeHtml> {
  const brains = await listBrains(actor);
  if (brains.length === 0) return markup`<p>This token sees no brain.</p>`;
  return markup`<ul class="cards">
${
    brains.map((b) =>
      markup`<li><a href="${
        brainBase(b)
      }/"><strong>${b.name}</strong></a> <span class="muted">${b.slug} · ${b.visibility}</span></li>`
    )
  }
</ul>`;
}

/** A brain's overview. */
export async function overviewBody(actor: ConsoleActor, brain: Brain): Promise<SafeHtml> {
  const { stats, tags, recent } = await brainOverview(actor, brain);
  const off = (tool: string) =>
    markup`<p class="muted">Not available: this token's tools list leaves out ${tool}.</p>`;
  return markup`${searchForm(brain, { query: "" })}
<section aria-labelledby="stats-h">
<h2 id="stats-h">Statistics</h2>
${stats ? statsList(stats) : off("memory_stats")}
</section>
<section aria-labelledby="tags-h">
<h2 id="tags-h">Tags</h2>
${
    !tags
      ? off("memory_tags")
      : tags.length
      ? markup`<ul class="tags">${
        tags.map((t) =>
          markup`<li><a href="${brainBase(brain)}/search${
            query({ q: t.tag, tag: t.tag })
          }">${t.tag}</a> <span class="muted">${t.count}</span></li>`
        )
      }</ul>`
      : markup`<p class="muted">No tags.</p>`
  }
</section>
<section aria-labelledby="recent-h">
<h2 id="recent-h">Latest changes</h2>
${recent ? timelineTable(brain, recent) : off("memory_timeline")}
<p><a href="${brainBase(brain)}/timeline">The whole timeline</a></p>
</section>`;
}

function statsList(stats: BrainStats): SafeHtml {
  const item = (label: string, value: string | number) =>
    markup`<div><dt>${label}</dt><dd>${value}</dd></div>`;
  return markup`<dl class="stats">${[
    item("Documents", stats.documents),
    item("Forgotten", stats.deleted_documents),
    item("Versions", stats.versions),
    item("Chunks", stats.chunks),
    item("Bytes", stats.bytes),
    item("Tags", stats.tags),
    item("Last change", when(stats.last_updated_at) || "never"),
  ]}</dl>`;
}

/** The search form, with its filters. */
export function searchForm(brain: Brain, f: Partial<SearchFilters>): SafeHtml {
  const open = f.tag || f.path || f.source || f.since || f.until ? markup` open` : "";
  const sources = ["", "ingest", "extract", "compile", "reflect"].map((s) =>
    markup`<option value="${s}"${f.source === s ? markup` selected` : ""}>${s || "any"}</option>`
  );
  return markup`<form class="search" role="search" method="get" action="${brainBase(brain)}/search">
<label for="q">Search ${brain.name}</label>
<input id="q" name="q" type="search" required value="${f.query ?? ""}">
<button type="submit">Search</button>
<details${open}>
<summary>Filters</summary>
<div class="filters">
<label>Tag <input name="tag" value="${f.tag ?? ""}"></label>
<label>Path starts with <input name="path" value="${
    f.path ?? ""
  }" placeholder="/memory/project/"></label>
<label>Source <select name="source">${sources}</select></label>
<label>Updated since <input name="since" type="date" value="${f.since ?? ""}"></label>
<label>Updated until <input name="until" type="date" value="${f.until ?? ""}"></label>
</div>
</details>
</form>`;
}

/** Search results. */
export async function searchBody(
  actor: ConsoleActor,
  brain: Brain,
  f: SearchFilters,
): Promise<SafeHtml> {
  const form = searchForm(brain, f);
  if (!f.query) return form;
  const r = await search(actor, brain, f);
  return markup`${form}
<p role="status" class="muted">${r.hits.length} result(s) in ${r.took_ms} ms${
    r.filtered ? " (filters applied to the best 100 hits)" : ""
  }</p>
<ol class="hits">${r.hits.map((h) => hitItem(brain, h))}</ol>`;
}

function hitItem(brain: Brain, h: SourcedHit): SafeHtml {
  // The title's highlight comes first when the title matched; the body's snippet last.
  const titleMatched = h.highlights.length > 1 ||
    (h.highlights.length === 1 && h.highlights[0].replaceAll("**", "") === h.title);
  const title = titleMatched ? h.highlights[0] : h.title;
  const snippets = h.highlights.slice(titleMatched ? 1 : 0);
  const tags = tagsOf(h.metadata.tags);
  return markup`<li class="hit">
<a href="${docUrl(brain, h.document_id)}">${marked(title)}</a>
<div class="muted">${h.path} · ${h.source} · updated ${when(h.updated_at)}${
    tags.length ? ` · tags ${tags.join(", ")}` : ""
  }</div>
${snippets.map((s) => markup`<p class="snippet">${marked(s)}</p>`)}
</li>`;
}

/** Text whose `**`-marked spans (search highlights) become `<mark>`, everything escaped. */
export function marked(text: string): SafeHtml {
  const parts = text.split("**");
  return markup`${parts.map((p, i) => (i % 2 === 1 ? markup`<mark>${p}</mark>` : p))}`;
}

/** A timeline as a table. */
export function timelineTable(brain: Brain, items: readonly TimelineEntry[]): SafeHtml {
  if (items.length === 0) return markup`<p class="muted">No changes yet.</p>`;
  const rows = items.map((i) => {
    const what = i.action === "deleted"
      ? i.title
      : markup`<a href="${docUrl(brain, i.document_id)}">${i.title}</a>`;
    return markup`<tr><td>${
      when(i.at)
    }</td><td>${i.action}</td><td>${what} <span class="muted">${i.path}</span></td><td>${i.version}</td></tr>`;
  });
  return markup`<table>
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Document</th><th scope="col">Version</th></tr></thead>
<tbody data-live-changes="${brainBase(brain)}">${rows}</tbody>
</table>`;
}

/** The timeline page: changes, and the forgotten documents that can be brought back. */
export async function timelineBody(actor: ConsoleActor, brain: Brain): Promise<SafeHtml> {
  const r = await timeline(actor, brain, { limit: 200 });
  const restore = (id: string) =>
    actor.can("write")
      ? markup` <button type="button" data-action="restore" data-url="${brainApi(brain)}/doc/${
        seg(id)
      }/restore">Restore</button>`
      : "";
  const forgotten = r.forgotten.length
    ? markup`<ul class="forgotten">${
      r.forgotten.map((f) =>
        markup`<li><span>${f.title}</span> <span class="muted">${f.path} · forgotten ${
          when(f.at)
        }</span>${restore(f.document_id)}</li>`
      )
    }</ul>`
    : markup`<p class="muted">None in the latest changes.</p>`;
  return markup`<section aria-labelledby="forgotten-h">
<h2 id="forgotten-h">Forgotten documents</h2>
${forgotten}
</section>
<section aria-labelledby="changes-h">
<h2 id="changes-h">Changes</h2>
${timelineTable(brain, r.items)}
</section>`;
}

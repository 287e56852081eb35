/**
 * @module The Synthesis page: a topic, then the brain's open loops, its decisions and the context
 * pack for the topic, each item linked to the document it comes from (at the quoted passage where
 * there is one). Every item's text is stored text: escaped.
 */
import type { DecisionRecord } from "../../../core/synthesis/decisions.ts";
import type { OpenLoop } from "../../../core/synthesis/open_loops.ts";
import type { PackResult } from "../../../core/synthesis/pack.ts";
import type { Brain } from "../../../core/types.ts";
import { markup, type SafeHtml } from "../html.ts";
import { notice, when } from "../layout.ts";
import { passageHref } from "../live_actions.ts";
import { brainBase, docUrl } from "../pages_memory.ts";
import type { Part, SynthesisView } from "./synthesis_actions.ts";

function partBody<T>(p: Part<T>, draw: (value: T) => SafeHtml): SafeHtml {
  if ("off" in p) {
    return markup`<p class="muted">Not available: this token's tools list leaves out ${p.off}.</p>`;
  }
  if ("error" in p) return notice("error", `${p.error.code}: ${p.error.message}`);
  return draw(p.value);
}

function loopItem(brain: Brain, i: OpenLoop): SafeHtml {
  const who = [i.owner ? `owner ${i.owner}` : "", i.due ? `due ${i.due}` : ""].filter(Boolean);
  return markup`<li><span class="kind">${i.kind}</span> ${i.text}${
    who.length ? markup` <span class="muted">(${who.join(", ")})</span>` : ""
  }<br><a href="${passageHref(docUrl(brain, i.document_id), i.text)}">${i.path}</a>
<span class="muted">line ${i.line} · open since ${when(i.first_seen)}</span></li>`;
}

function decisionItem(brain: Brain, d: DecisionRecord): SafeHtml {
  const c = d.citation;
  const about = [d.when, d.who].filter(Boolean).join(", ");
  return markup`<li><strong>${d.statement}</strong>${
    d.rationale ? markup` <span>because ${d.rationale}</span>` : ""
  }${about ? markup` <span class="muted">(${about})</span>` : ""}<br><a href="${
    passageHref(docUrl(brain, c.document_id), c.quote)
  }">${c.path}</a><q>${c.quote}</q></li>`;
}

function packBody(brain: Brain, p: PackResult): SafeHtml {
  if (p.sources.length === 0) return markup`<p class="muted">${p.note ?? "Nothing to pack."}</p>`;
  return markup`<p>${p.tokens} of ${p.budget_tokens} ${p.tokenizer} tokens from ${p.sources.length} document(s)${
    p.truncated ? "; cut to fit" : ""
  }. Sources:</p>
<ol class="sources">${
    p.sources.map((s) =>
      markup`<li><a href="${
        docUrl(brain, s.document_id)
      }">${s.title}</a> <span class="muted">${s.path}</span></li>`
    )
  }</ol>
<details>
<summary>The pack as an agent gets it</summary>
<pre class="pack">${p.pack}</pre>
</details>`;
}

/** The Synthesis page's body. */
export function synthesisBody(brain: Brain, v: SynthesisView): SafeHtml {
  const loops = partBody(v.loops, (r) => {
    const c = r.open_counts;
    const head = r.filtered
      ? markup`<p>${r.items.length} open loop(s) about “${v.topic}” (of ${
        c.task + c.question + c.commitment
      } open in the brain).</p>`
      : markup`<p>${c.task} task(s), ${c.question} question(s), ${c.commitment} commitment(s) open${
        r.truncated ? "; the newest shown" : ""
      }.</p>`;
    return r.items.length
      ? markup`${head}<ul class="loops">${r.items.map((i) => loopItem(brain, i))}</ul>`
      : markup`${head}${r.note ? markup`<p class="muted">${r.note}</p>` : ""}`;
  });
  const decisions = partBody(
    v.decisions,
    (r) =>
      r.decisions.length
        ? markup`<ul class="decisions">${r.decisions.map((d) => decisionItem(brain, d))}</ul>
<p class="muted">Found by ${r.provider}.</p>`
        : markup`<p class="muted">${r.note ?? "No decisions found."}</p>`,
  );
  const pack = v.pack
    ? partBody(v.pack, (p) => packBody(brain, p))
    : markup`<p class="muted">Give a topic to pack what the brain holds about it.</p>`;
  return markup`<form class="search" role="search" method="get" action="${
    brainBase(brain)
  }/synthesis">
<label for="topic">Topic</label>
<input id="topic" name="topic" type="search" value="${v.topic}">
<button type="submit">Show</button>
</form>
<section aria-labelledby="loops-h">
<h2 id="loops-h">Open loops</h2>
${loops}
</section>
<section aria-labelledby="decisions-h">
<h2 id="decisions-h">Decisions</h2>
${decisions}
</section>
<section aria-labelledby="pack-h">
<h2 id="pack-h">Context pack</h2>
${pack}
</section>`;
}

/**
 * @module A document's pages: the document (front matter as data, the body as sanitised markdown,
 * tags, versions, backlinks, and — for a write token — edit and forget), a diff of two versions,
 * and the edit form.
 */
import type { Brain } from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";
import { markup, query, type SafeHtml, seg } from "./html.ts";
import { notice, when } from "./layout.ts";
import { renderNote } from "./markdown_render.ts";
import { documentView, tagsOf, versionDiff } from "./memory_actions.ts";
import { brainApi, brainBase, docUrl } from "./pages_memory.ts";

/** The API URL of a document. */
export function docApi(brain: Brain, id: string): string {
  return `${brainApi(brain)}/doc/${seg(id)}`;
}

/** A document page; its title goes to the frame. */
export async function documentBody(
  actor: ConsoleActor,
  brain: Brain,
  o: { id: string; version?: number },
): Promise<{ title: string; body: SafeHtml }> {
  const { doc, versions, backlinks } = await documentView(actor, brain, o);
  const note = renderNote(doc.content);
  const tags = tagsOf(doc.metadata.tags);
  const current = versions[0]?.version ?? doc.version;
  const old = doc.version !== current;
  const oldNotice = old
    ? notice(
      "info",
      markup`You are reading version ${doc.version}; the current one is <a href="${
        docUrl(brain, doc.id)
      }">version ${current}</a>.`,
    )
    : "";
  const tagList = tags.length
    ? markup`<ul class="tags" aria-label="Tags">${
      tags.map((t) =>
        markup`<li><a href="${brainBase(brain)}/search${query({ q: t, tag: t })}">${t}</a></li>`
      )
    }</ul>`
    : "";
  const actions = actor.can("write") && !old
    ? markup`<div class="actions">
<a class="button" href="${docUrl(brain, doc.id)}/edit">Edit</a>
<button type="button" data-action="forget" data-url="${docApi(brain, doc.id)}/forget" data-then="${
      brainBase(brain)
    }/timeline">Forget</button>
</div>`
    : "";
  const front = note.front.length
    ? markup`<section aria-labelledby="front-h"><h2 id="front-h">Front matter</h2>
<dl class="front">${
      note.front.map((f) => markup`<div><dt>${f.key}</dt><dd>${f.value}</dd></div>`)
    }</dl></section>`
    : "";
  const links = backlinks.length
    ? markup`<ul>${
      backlinks.map((b) =>
        markup`<li><a href="${
          docUrl(brain, b.document_id)
        }">${b.title}</a> <span class="muted">${b.path} · ${b.kind}: ${b.text}</span></li>`
      )
    }</ul>`
    : markup`<p class="muted">No document links here.</p>`;
  const body = markup`${oldNotice}
<p class="meta muted" data-document="${doc.id}" data-version="${current}">${doc.path} · version ${doc.version} · ${doc.source} · updated ${
    when(doc.updated_at)
  }</p>
${tagList}
${actions}
${front}
<article class="note" aria-label="Content">${note.body}</article>
<section aria-labelledby="versions-h">
<h2 id="versions-h">Versions</h2>
${versionsForm(brain, { id: doc.id, versions, shown: doc.version })}
</section>
<section aria-labelledby="backlinks-h">
<h2 id="backlinks-h">Backlinks</h2>
${links}
</section>`;
  return { title: doc.title, body };
}

function versionsForm(
  brain: Brain,
  o: {
    id: string;
    versions: { version: number; title: string; updated_at: string; byte_size: number }[];
    shown: number;
  },
): SafeHtml {
  const { versions } = o;
  const option = (v: number, selected: boolean) =>
    markup`<option value="${v}"${selected ? markup` selected` : ""}>${v}</option>`;
  const rows = versions.map((v) =>
    markup`<tr><td>${
      v.version === o.shown
        ? markup`<strong aria-current="true">${v.version}</strong>`
        : markup`<a href="${docUrl(brain, o.id, { version: v.version })}">${v.version}</a>`
    }</td><td>${v.title}</td><td>${when(v.updated_at)}</td><td>${v.byte_size}</td></tr>`
  );
  const compare = versions.length > 1
    ? markup`<form class="compare" method="get" action="${docUrl(brain, o.id)}/diff">
<label>From <select name="from">${
      versions.map((v, i) => option(v.version, i === 1))
    }</select></label>
<label>To <select name="to">${versions.map((v, i) => option(v.version, i === 0))}</select></label>
<button type="submit">Compare</button>
</form>`
    : "";
  return markup`<table>
<thead><tr><th scope="col">Version</th><th scope="col">Title</th><th scope="col">Updated</th><th scope="col">Bytes</th></tr></thead>
<tbody>${rows}</tbody>
</table>
${compare}`;
}

/** The diff of two versions. */
export async function diffBody(
  actor: ConsoleActor,
  brain: Brain,
  o: { id: string; from: number; to: number },
): Promise<{ title: string; body: SafeHtml }> {
  const d = await versionDiff(actor, brain, o);
  const changed = d.parts.some((p) => p.kind !== "same");
  const retitled = d.from.title !== d.to.title
    ? markup`; title: ${d.from.title} → ${d.to.title}`
    : "";
  const lines = d.parts.map((p) =>
    p.kind === "same"
      ? markup`<span class="same">${prefixed(p.text, "  ")}</span>`
      : p.kind === "added"
      ? markup`<ins>${prefixed(p.text, "+ ")}</ins>`
      : markup`<del>${prefixed(p.text, "- ")}</del>`
  );
  const body = markup`<p><a href="${docUrl(brain, o.id)}">Back to the document</a></p>
<p class="muted">Version ${d.from.version} (${
    when(d.from.updated_at)
  }) to version ${d.to.version} (${when(d.to.updated_at)})${retitled}</p>
${
    changed
      ? markup`<pre class="diff" aria-label="Line diff">${lines}</pre>`
      : markup`<p>The content is the same.</p>`
  }`;
  return { title: `${d.to.title}: version ${o.from} to ${o.to}`, body };
}

/** Each line of `text` with `mark` in front (a diff reads without colour too). */
function prefixed(text: string, mark: string): string {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return lines.map((l) => `${mark}${l}\n`).join("");
}

/** The edit form (write tier; the page is refused below it). */
export async function editBody(
  actor: ConsoleActor,
  brain: Brain,
  id: string,
): Promise<{ title: string; body: SafeHtml }> {
  const { doc } = await documentView(actor, brain, { id });
  // The newline after <textarea> is dropped by every HTML parser: the content stays exact.
  const body = markup`<form class="edit" data-action="edit" data-url="${
    docApi(brain, doc.id)
  }" data-then="${docUrl(brain, doc.id)}">
<label for="title">Title</label>
<input id="title" name="title" required value="${doc.title}">
<label for="tags">Tags (comma-separated)</label>
<input id="tags" name="tags" value="${tagsOf(doc.metadata.tags).join(", ")}">
<label for="content">Content (markdown)</label>
<textarea id="content" name="content" rows="20" required>
${doc.content}</textarea>
<p class="form-status" role="status" aria-live="polite"></p>
<div class="actions"><button type="submit">Save as a new version</button> <a href="${
    docUrl(brain, doc.id)
  }">Cancel</a></div>
</form>`;
  return { title: `Edit ${doc.title}`, body };
}

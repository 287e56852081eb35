/**
 * @module A stored note as the console shows it: its front matter apart (shown as data), its body
 * as markdown rendered by `marked` and then sanitised by `sanitize-html` with an allowlist — no
 * script, no event handler, no `style`, no `javascript:` or `data:` link, no image (the CSP would
 * refuse remote ones anyway). The sanitiser is the guarantee; marked's own escaping is not relied
 * on (docs/console.md#security-model).
 */
import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";
import { readFrontMatter } from "../../core/markdown/front_matter.ts";
import { type SafeHtml, trusted } from "./html.ts";

/** Tags the rendered markdown may keep. */
const ALLOWED_TAGS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "br",
  "hr",
  "blockquote",
  "pre",
  "code",
  "em",
  "strong",
  "del",
  "s",
  "a",
  "ul",
  "ol",
  "li",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "input",
  "sup",
  "sub",
  "kbd",
];

/** Attributes of a tag as the sanitiser hands them to a transform. */
type Attribs = Record<string, string>;

const SANITIZE = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: {
    a: ["href", "title"],
    code: ["class"],
    th: ["align"],
    td: ["align"],
    // Task-list checkboxes, shown and never editable.
    input: ["type", "checked", "disabled"],
    ol: ["start"],
  } as Record<string, string[]>,
  allowedClasses: { code: [/^language-[A-Za-z0-9_+-]{1,32}$/] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  transformTags: {
    // The page's own title is its one h1: a note's headings sit one level below it.
    h1: "h2",
    h2: "h3",
    h3: "h4",
    h4: "h5",
    h5: "h6",
    // Links leave the console in a new context, without telling the target where they came from.
    a: (_tag: string, attribs: Attribs) => ({
      tagName: "a",
      attribs: { ...attribs, rel: "noopener noreferrer nofollow" },
    }),
    input: (_tag: string, attribs: Attribs) => ({
      tagName: "input",
      attribs: attribs.type === "checkbox"
        ? { type: "checkbox", disabled: "", ...("checked" in attribs ? { checked: "" } : {}) }
        : {},
    }),
  },
  exclusiveFilter: (frame: { tag: string; attribs: Attribs }) =>
    frame.tag === "input" && frame.attribs.type !== "checkbox",
};
// rel is added by the transform above; it must survive the attribute allowlist too.
SANITIZE.allowedAttributes.a.push("rel");

/** One marked instance: GitHub-flavoured, no header ids (ids from stored text could clash). */
const MARKED = new Marked({ gfm: true, breaks: false, async: false });

/** Markdown rendered and sanitised. */
export function renderMarkdown(markdown: string): SafeHtml {
  const raw = MARKED.parse(markdown, { async: false }) as string;
  return trusted(sanitizeHtml(raw, SANITIZE));
}

/** A note split for display: its front matter (key, value text) and its rendered body. */
export interface RenderedNote {
  front: { key: string; value: string }[];
  body: SafeHtml;
}

/** Renders a stored note: front matter as key/value text, the rest as sanitised markdown. */
export function renderNote(content: string): RenderedNote {
  const read = readFrontMatter(content);
  const front: { key: string; value: string }[] = [];
  if (read.front) {
    const f = read.front;
    if (f.title !== undefined) front.push({ key: "title", value: f.title });
    if (f.tags.length) front.push({ key: "tags", value: f.tags.join(", ") });
    for (const [key, value] of Object.entries(f.metadata)) {
      front.push({ key, value: value === null ? "" : String(value) });
    }
  }
  return { front, body: renderMarkdown(read.body) };
}

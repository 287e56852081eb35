/**
 * @module HTML built so that untrusted text cannot become markup: the `markup` tag escapes every
 * interpolated value unless it is already `SafeHtml` (made by this tag, or by the sanitiser of
 * `markdown_render.ts`). Stored notes, titles, tags, client names and upstream descriptions are
 * data (docs/console.md#security-model).
 */

/** Markup that is safe to send as is: built by `markup`, `raw` of a constant, or sanitised. */
export class SafeHtml {
  /** The markup. */
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  /** The markup (so a SafeHtml can be concatenated into a response body). */
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text escaped for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ENTITIES[c]);
}

/** What may be interpolated: text (escaped), numbers, safe markup, lists of these; nullish is empty. */
export type HtmlValue =
  | string
  | number
  | SafeHtml
  | null
  | undefined
  | false
  | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/**
 * A template of markup whose interpolations are escaped text (or SafeHtml). Not named `html`, so
 * `deno fmt` leaves the templates as written (it reformats `html` templates, whitespace of a
 * `<textarea>` included).
 */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** Markup already known to be safe (a sanitiser's output). Never pass stored or request text. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A URL path segment: percent-encoded, so it stays one segment whatever it holds. */
export function seg(text: string): string {
  return encodeURIComponent(text);
}

/** A query string from the given parameters; empty values are left out. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** @module The text of a prompt message, kept within a character budget so it fits a context window. */
import type { DocumentWithContent } from "../../../core/types.ts";
import { documentUri } from "../resources/resource_uris.ts";

/** Most characters one prompt message may hold. */
export const PROMPT_CHAR_BUDGET = 40_000;
/** Kept free for the closing lines and the list of documents left out. */
const RESERVE = 2_000;

/** Builds one message: fixed text first, then documents cut to what the budget has left. */
export class PromptText {
  readonly #parts: string[] = [];
  readonly #omitted: string[] = [];
  readonly #budget: number;
  #used = 0;

  constructor(budget = PROMPT_CHAR_BUDGET) {
    this.#budget = budget;
  }

  /** Characters still free for documents. */
  get remaining(): number {
    return Math.max(0, this.#budget - RESERVE - this.#used);
  }

  /** Adds text that must appear (instructions, headings, short lists). */
  add(text: string): this {
    this.#parts.push(text);
    this.#used += text.length + 2;
    return this;
  }

  /**
   * Adds a document under a heading, cut to `max` characters and to what the budget has left,
   * with a note saying how much was cut and where the whole document is. A document that no
   * longer fits at all is named at the end instead.
   */
  document(
    doc: Pick<DocumentWithContent, "id" | "path" | "title" | "content">,
    options: { max?: number; label?: string; details?: string } = {},
  ): this {
    const heading = `### ${options.label ? `${options.label}: ` : ""}${doc.title} (${doc.path})` +
      (options.details ? `\n${options.details}` : "");
    const room = Math.min(options.max ?? Infinity, this.remaining - heading.length - 200);
    if (room < 200) {
      this.#omitted.push(`- ${doc.title} (${doc.path}) — ${documentUri(doc.id)}`);
      return this;
    }
    const body = excerpt(doc.content, room);
    const cut = doc.content.length - body.length;
    const note = cut > 0
      ? `\n\n[… ${cut} more characters not shown; the whole document is ${documentUri(doc.id)}]`
      : "";
    return this.add(`${heading}\n\n${body}${note}`);
  }

  /** The finished text. */
  toString(): string {
    const omitted = this.#omitted.length
      ? [
        `Also relevant but left out to keep this message short (read them as resources):\n${
          this.#omitted.join("\n")
        }`,
      ]
      : [];
    return [...this.#parts, ...omitted].join("\n\n");
  }
}

/** The start of `text`, at most `max` characters, cut at a line or word end when one is near. */
export function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const breakAt = Math.max(head.lastIndexOf("\n"), head.lastIndexOf(" "));
  return (breakAt > max * 0.8 ? head.slice(0, breakAt) : head).trimEnd();
}

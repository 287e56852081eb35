/** @module Line-level markdown structure: front matter, code fences and ATX headings. */

/** A heading found outside code fences. */
export interface Heading {
  level: number;
  text: string;
  /** Offset of the heading line's first character. */
  start: number;
  /** Offset just past the heading line (including its newline). */
  end: number;
}

/** The text under one heading (or before the first), as offsets, with its heading path. */
export interface HeadingSection {
  /** The headings it sits under, outermost first; empty before the first heading. */
  path: string[];
  /** Offset just past its heading line (for the first section: past any front matter). */
  start: number;
  /** Offset of the next heading line, or the end of the text. */
  end: number;
}

/** One line with its offsets. */
export interface Line {
  text: string;
  start: number;
  end: number;
  inFence: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

/** Splits text into lines, marking those inside fenced code blocks (fence lines included). */
export function scanLines(text: string): Line[] {
  const lines: Line[] = [];
  let fence: string | null = null;
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl === -1 ? text.length : nl + 1;
    const raw = text.slice(pos, nl === -1 ? text.length : nl).replace(/\r$/, "");
    const m = FENCE.exec(raw);
    let inFence = fence !== null;
    if (m) {
      if (fence === null) {
        fence = m[1][0].repeat(m[1].length);
        inFence = true;
      } else if (m[1][0] === fence[0] && m[1].length >= fence.length) {
        fence = null;
        inFence = true;
      }
    }
    lines.push({ text: raw, start: pos, end, inFence });
    if (nl === -1) break;
    pos = end;
  }
  return lines;
}

/** Length of a leading YAML front matter block (`---` … `---`), or 0. */
export function frontMatterLength(text: string): number {
  if (!text.startsWith("---\n") && !text.startsWith("---\r\n")) return 0;
  const close = /\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/g;
  close.lastIndex = 3;
  const m = close.exec(text);
  return m ? m.index + m[0].length : 0;
}

/** ATX headings outside fences and front matter. */
export function findHeadings(text: string, lines: Line[] = scanLines(text)): Heading[] {
  const skip = frontMatterLength(text);
  const out: Heading[] = [];
  for (const line of lines) {
    if (line.inFence || line.start < skip) continue;
    const m = ATX.exec(line.text);
    if (!m) continue;
    const headingText = (m[2] ?? "").replace(/[ \t]+#+$/, "").trim();
    if (headingText) {
      out.push({ level: m[1].length, text: headingText, start: line.start, end: line.end });
    }
  }
  return out;
}

/**
 * The sections between headings, in order, each with its heading path: the first runs from the
 * end of any front matter to the first heading, the last to the end. Sections may be empty.
 */
export function headingSections(text: string): HeadingSection[] {
  const out: HeadingSection[] = [];
  const stack: Heading[] = [];
  let start = frontMatterLength(text);
  let path: string[] = [];
  for (const h of findHeadings(text)) {
    out.push({ path, start, end: h.start });
    while (stack.length && stack[stack.length - 1].level >= h.level) stack.pop();
    stack.push(h);
    path = stack.map((s) => s.text);
    start = h.end;
  }
  out.push({ path, start, end: text.length });
  return out;
}

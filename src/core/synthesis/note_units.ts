/**
 * @module The units the extractors judge: each list item (with its soft-wrapped continuation),
 * each table row, and each sentence of a prose paragraph — a speaker's turn being a paragraph of
 * its own — with the line it starts on. Code, headings and front matter yield none.
 */
import { splitSentences } from "../text/sentences.ts";
import { blankCode, type NoteLine } from "./note_lines.ts";

/** One judged piece of a note. */
export interface NoteUnit {
  kind: "item" | "row" | "sentence";
  text: string;
  /** `text` with inline code blanked out. */
  plain: string;
  /** 1-based line the unit starts on. */
  line: number;
  /** The paragraph (or item, or row) it belongs to; consecutive sentences share it. */
  para: number;
  /** The first line of its paragraph, item or row (section, label, speaker, checkbox). */
  at: NoteLine;
  /** Indent of its item (0 for prose). */
  indent: number;
}

/** The units of classified lines, in order. */
export function noteUnits(lines: NoteLine[]): NoteUnit[] {
  const units: NoteUnit[] = [];
  let para = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.kind === "item" || line.kind === "row") {
      // Soft-wrapped continuation lines of an item belong to it.
      let text = line.text;
      let j = i + 1;
      while (
        line.kind === "item" && j < lines.length && lines[j].kind === "prose" &&
        lines[j].indent > line.indent && !lines[j].speaker
      ) {
        text += ` ${lines[j].text}`;
        j++;
      }
      units.push({
        kind: line.kind,
        text,
        plain: blankCode(text),
        line: line.n,
        para: para++,
        at: line,
        indent: line.indent,
      });
      i = j;
      continue;
    }
    if (line.kind !== "prose") {
      i++;
      continue;
    }
    // A paragraph: prose lines up to a blank line, another block, a new speaker's turn or a
    // "Label: …" line.
    const first = line;
    const parts = [line.text];
    const starts = [0];
    let length = line.text.length;
    let j = i + 1;
    while (
      j < lines.length && lines[j].kind === "prose" && lines[j].speaker === first.speaker &&
      !lines[j].turn && !lines[j].labelled
    ) {
      starts.push(length + 1);
      length += lines[j].text.length + 1;
      parts.push(lines[j].text);
      j++;
    }
    const text = parts.join("\n");
    let offsetLine = 0;
    for (const s of splitSentences(text)) {
      while (offsetLine + 1 < starts.length && starts[offsetLine + 1] <= s.start) offsetLine++;
      units.push({
        kind: "sentence",
        text: s.text.replace(/\s*\n\s*/g, " "),
        plain: blankCode(s.text.replace(/\s*\n\s*/g, " ")),
        line: first.n + offsetLine,
        para,
        at: lines[i + offsetLine],
        indent: 0,
      });
    }
    para++;
    i = j;
  }
  return units;
}

/** The units of the paragraph (or item) holding unit `index` (they are consecutive). */
export function paragraphOf(units: NoteUnit[], index: number): NoteUnit[] {
  let from = index;
  let to = index;
  while (from > 0 && units[from - 1].para === units[index].para) from--;
  while (to + 1 < units.length && units[to + 1].para === units[index].para) to++;
  return units.slice(from, to + 1);
}

/** Whether the unit is the last of its paragraph. */
export function lastInParagraph(units: NoteUnit[], index: number): boolean {
  return units[index + 1]?.para !== units[index].para;
}

/**
 * @module A note or transcript as classified lines: headings (with the section path they open),
 * list items (with checkboxes and strike-through), table rows (with their header), prose, and
 * code — fenced or indented — which no extractor ever reads. Speaker turns of transcripts,
 * captions and chat logs ("Alice:", "[00:01:02] Greg:", "<v Ann>", "<maria> …", "**alice** 10:02")
 * are recognised (see speaker_turns.ts), and a prose line ending in a colon ("Action items:")
 * labels the list after it.
 */
import { frontMatterLength, scanLines } from "../markdown/structure.ts";
import {
  chatHeader,
  cueText,
  cueTime,
  cueTitle,
  transcriptShape,
  turnOf,
} from "./speaker_turns.ts";

/** What a line is. */
export type LineKind = "blank" | "heading" | "item" | "row" | "prose" | "code" | "meta";

/** One classified line. */
export interface NoteLine {
  /** 1-based line number in the text. */
  n: number;
  kind: LineKind;
  /** The line's text without list marker, checkbox, quote marker or speaker prefix; trimmed. */
  text: string;
  /** `text` with inline code blanked out, for matching cue words. */
  plain: string;
  indent: number;
  /** List items with a checkbox. */
  checkbox?: "open" | "done";
  /** Struck through (`~~…~~`): done or dropped. */
  struck: boolean;
  /** Heading level (1..6) for headings. */
  level?: number;
  /** Headings above this line, outermost first (a heading's own path ends with itself). */
  section: string[];
  /** The nearest "Something:" line introducing the list this line belongs to. */
  label?: string;
  /** Who speaks this line (transcripts, chat logs). */
  speaker?: string;
  /** The line opens a speaker's turn (it has its own speaker prefix). */
  turn?: boolean;
  /** A timestamp given with the turn ("00:01:02", "09:14"). */
  time?: string;
  /** Opens with a label ("Note: …", "TODO: …"): it starts a paragraph, as a turn does. */
  labelled?: boolean;
  /** Table rows: the cells, and the header row's cells. */
  cells?: string[];
  header?: string[];
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const ITEM = /^([ \t]*)(?:[-*+•]|\d{1,9}[.)])[ \t]+(?:\[([ xX~])\][ \t]*)?(.*)$/;
const QUOTE = /^ {0,3}(?:>[ \t]?)+/;
const TABLE_RULE = /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/;
const INLINE_CODE = /(`+)[^`\n]*?\1/g;
/** "Note: …", "TODO: …": a line with a label of its own. */
const LABELLED = /^[^\s:：]{1,30}[:：](?:\s|$)/u;

/** Classifies every line of `text`. */
export function noteLines(text: string): NoteLine[] {
  const skip = frontMatterLength(text);
  const raw = scanLines(text);
  const shape = transcriptShape(raw.map((l) => l.text));
  const out: NoteLine[] = [];
  const section: string[] = [];
  const levels: number[] = [];
  let label: string | undefined;
  let header: string[] | undefined;
  let inList = false;
  let chatSpeaker: { name: string; time: string } | undefined;
  /** The speaker of the turn whose wrapped lines follow, until a blank line. */
  let turnSpeaker: { speaker: string; time?: string } | undefined;
  /** Captions: the last cue's start time. */
  let cueAt: string | undefined;
  let previousBlank = true;
  for (const [i, line] of raw.entries()) {
    const base = { n: i + 1, struck: false, section: [...section] };
    if (line.start < skip) {
      out.push({ ...base, kind: "meta", text: line.text.trim(), plain: "", indent: 0 });
      continue;
    }
    if (shape.cues) {
      // Captions: timings, indexes and the blank lines between cues are left out, so a sentence
      // split over two cues of one speaker stays one paragraph.
      const title = i === shape.cueHeader ? cueTitle(line.text) : null;
      if (title) {
        out.push({ ...base, kind: "heading", text: title, plain: title, indent: 0, level: 1 });
        continue;
      }
      cueAt = cueTime(line.text) ?? cueAt;
      if (shape.cueMeta.has(i) || line.text.trim() === "") continue;
      const cue = cueText(line.text, shape);
      const speaker = cue.speaker ?? turnSpeaker?.speaker;
      const opens = cue.speaker !== undefined && cue.speaker !== turnSpeaker?.speaker;
      if (speaker) turnSpeaker = { speaker, ...(cueAt ? { time: cueAt } : {}) };
      const text = stripEmphasis(cue.text);
      out.push({
        ...base,
        kind: "prose",
        text,
        plain: blankCode(text),
        indent: 0,
        ...(speaker ? { speaker, ...(opens ? { turn: true } : {}) } : {}),
        ...(cueAt ? { time: cueAt } : {}),
      });
      continue;
    }
    const indent = /^[ \t]*/.exec(line.text)![0].replace(/\t/g, "    ").length;
    const blank = line.text.trim() === "";
    const indentedCode = !blank && indent >= 4 && previousBlank && !inList &&
      out.at(-1)?.kind !== "prose";
    if (line.inFence || indentedCode || (out.at(-1)?.kind === "code" && indent >= 4 && !blank)) {
      out.push({ ...base, kind: "code", text: line.text, plain: "", indent });
      previousBlank = false;
      continue;
    }
    previousBlank = blank;
    if (blank) {
      turnSpeaker = undefined;
      out.push({ ...base, kind: "blank", text: "", plain: "", indent: 0 });
      header = undefined;
      continue;
    }
    const body = line.text.replace(QUOTE, "");
    const heading = HEADING.exec(body);
    if (heading) {
      const level = heading[1].length;
      while (levels.length && levels.at(-1)! >= level) {
        levels.pop();
        section.pop();
      }
      const title = stripEmphasis(heading[2]);
      levels.push(level);
      section.push(title);
      label = undefined;
      inList = false;
      chatSpeaker = undefined;
      turnSpeaker = undefined;
      out.push({ ...base, kind: "heading", text: title, plain: blankCode(title), indent, level });
      out.at(-1)!.section = [...section];
      continue;
    }
    const chat = chatHeader(body.trim());
    if (chat) {
      chatSpeaker = chat;
      out.push({ ...base, kind: "meta", text: body.trim(), plain: "", indent });
      continue;
    }
    if (/^[ \t]*\|/.test(body)) {
      inList = false;
      turnSpeaker = undefined;
      if (TABLE_RULE.test(body)) continue;
      const cells = body.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) =>
        c.trim()
      );
      if (!header) {
        header = cells;
        out.push({ ...base, kind: "meta", text: body.trim(), plain: "", indent, cells });
        continue;
      }
      const joined = cells.filter((c) => c !== "").join(" — ");
      out.push({
        ...base,
        kind: "row",
        text: joined,
        plain: blankCode(joined),
        indent,
        cells,
        header,
        label,
      });
      continue;
    }
    const item = ITEM.exec(body);
    if (item) {
      inList = true;
      turnSpeaker = undefined;
      const content = item[3].trim();
      const box = item[2];
      const struck = /^~~/.test(content) || /^~~[-*+]/.test(body.trim());
      const speaker = turnOf(content, shape);
      const text = speaker ? speaker.text : content;
      out.push({
        ...base,
        kind: "item",
        text: stripEmphasis(text),
        plain: blankCode(stripEmphasis(text)),
        indent,
        ...(box === undefined || box === "~" ? {} : { checkbox: box === " " ? "open" : "done" }),
        struck: struck || /^~~.*~~$/.test(content),
        label,
        // "- Ines: I'll finish the export" in a transcript: Ines says it.
        ...(speaker ? { speaker: speaker.speaker } : {}),
      });
      continue;
    }
    const whole = body.trim();
    const struckLine = /^~~/.test(whole);
    const turn = turnOf(whole, shape);
    // A turn's wrapped lines are its speaker's; a "Label: …" line after it is not.
    if (turn) turnSpeaker = { speaker: turn.speaker, ...(turn.time ? { time: turn.time } : {}) };
    const labelled = !turn && LABELLED.test(whole);
    if (labelled) turnSpeaker = undefined;
    const carried = turn ? undefined : turnSpeaker;
    if (!turn && indent === 0) inList = false;
    if (!turn && /[:：]\s*$/.test(whole) && whole.length <= 80) label = whole;
    else if (!inList && indent === 0) label = undefined;
    const text = stripEmphasis(turn ? turn.text : whole);
    out.push({
      ...base,
      kind: "prose",
      text,
      plain: blankCode(text),
      indent,
      struck: struckLine,
      label,
      ...(labelled ? { labelled } : {}),
      ...(turn
        ? { speaker: turn.speaker, turn: true, ...(turn.time ? { time: turn.time } : {}) }
        : carried
        ? carried
        : chatSpeaker
        ? { speaker: chatSpeaker.name, time: chatSpeaker.time }
        : {}),
    });
  }
  return out;
}

/** Text without bold/italic markers around it or inside it. */
function stripEmphasis(text: string): string {
  return text.replace(/(\*\*|__)(.+?)\1/g, "$2").replace(/~~(.+?)~~/g, "$1").trim();
}

/** Text with inline code spans replaced by spaces (offsets kept). */
export function blankCode(text: string): string {
  return text.replace(INLINE_CODE, (m) => " ".repeat(m.length));
}

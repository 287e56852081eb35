/**
 * @module A note or transcript as classified lines: headings (with the section path they open),
 * list items (with checkboxes and strike-through), table rows (with their header), prose, and
 * code — fenced or indented — which no extractor ever reads. Speaker turns of transcripts and
 * chat logs ("[00:01:02] Greg:", "<maria> …", "**alice** 10:02") are recognised, and a prose
 * line ending in a colon ("Action items:") labels the list after it.
 */
import { frontMatterLength, scanLines } from "../markdown/structure.ts";
import { SPEAKER_STOP_WORDS } from "./cues.ts";

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
  /** Table rows: the cells, and the header row's cells. */
  cells?: string[];
  header?: string[];
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const ITEM = /^([ \t]*)(?:[-*+•]|\d{1,9}[.)])[ \t]+(?:\[([ xX~])\][ \t]*)?(.*)$/;
const QUOTE = /^ {0,3}(?:>[ \t]?)+/;
const TABLE_RULE = /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/;
const INLINE_CODE = /(`+)[^`\n]*?\1/g;
/** `[00:01:02] Greg Olsen: text`, `00:01 Greg: text`, `(10:02) Ann: text`. */
const TIMED_TURN =
  /^[[(]?(\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?)[\])]?\s+([^:<>[\]()]{1,40}?):\s+(.*)$/;
/** `**alice** 10:02 text`: a chat message with its header on the same line. */
const CHAT_TURN = /^\*\*([^*\n]{1,40})\*\*[ \t]+(\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?)[ \t]+(\S.*)$/u;
/** `[09:14] <maria.g> text`, `<maria.g> text`. */
const IRC_TURN = /^(?:[[(]?(\d{1,2}:\d{2}(?::\d{2})?)[\])]?\s*)?<([^<>\s]{1,40})>\s*(.*)$/;
/** `**alice** 10:02`, `alice  10:02 AM`: a chat message header; the message follows. */
const CHAT_HEADER =
  /^(?:\*\*([^*\n]{1,40})\*\*|([\p{L}][\p{L}\p{N}._-]{0,39}))[ \t]+(?:—[ \t]*)?(\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?)[ \t]*$/u;
/** `Alice: text`, `Greg Olsen: text`, `**Alice:** text` — a turn only in transcript-like text. */
const NAMED_TURN =
  /^(?:\*\*)?([\p{Lu}][\p{L}\p{M}.'’-]*(?:[ \t][\p{Lu}][\p{L}\p{M}.'’-]*){0,2})(?::\*\*|\*\*:|:)[ \t]+(.*)$/u;
/** Named turns needed before `Name: text` lines are read as a transcript. */
const MIN_NAMED_TURNS = 3;

/** Classifies every line of `text`. */
export function noteLines(text: string): NoteLine[] {
  const skip = frontMatterLength(text);
  const raw = scanLines(text);
  const turns = namedTurnSpeakers(raw.map((l) => l.text));
  const out: NoteLine[] = [];
  const section: string[] = [];
  const levels: number[] = [];
  let label: string | undefined;
  let header: string[] | undefined;
  let inList = false;
  let chatSpeaker: { name: string; time: string } | undefined;
  let previousBlank = true;
  for (const [i, line] of raw.entries()) {
    const base = { n: i + 1, struck: false, section: [...section] };
    if (line.start < skip) {
      out.push({ ...base, kind: "meta", text: line.text.trim(), plain: "", indent: 0 });
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
      out.push({ ...base, kind: "heading", text: title, plain: blankCode(title), indent, level });
      out.at(-1)!.section = [...section];
      continue;
    }
    const chat = CHAT_HEADER.exec(body.trim());
    if (chat && !/^\d/.test(chat[1] ?? chat[2])) {
      chatSpeaker = { name: (chat[1] ?? chat[2]).trim(), time: chat[3] };
      out.push({ ...base, kind: "meta", text: body.trim(), plain: "", indent });
      continue;
    }
    if (/^[ \t]*\|/.test(body)) {
      inList = false;
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
      const content = item[3].trim();
      const box = item[2];
      const struck = /^~~/.test(content) || /^~~[-*+]/.test(body.trim());
      const speaker = turnOf(content, turns);
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
      });
      continue;
    }
    const whole = body.trim();
    const struckLine = /^~~/.test(whole);
    const turn = turnOf(whole, turns);
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
      ...(turn
        ? { speaker: turn.speaker, turn: true, ...(turn.time ? { time: turn.time } : {}) }
        : chatSpeaker
        ? { speaker: chatSpeaker.name, time: chatSpeaker.time }
        : {}),
    });
  }
  return out;
}

/** A line's speaker turn, when it is one. */
function turnOf(
  line: string,
  named: ReadonlySet<string>,
): { speaker: string; text: string; time?: string } | null {
  const chat = CHAT_TURN.exec(line);
  if (chat) return { speaker: chat[1].trim(), text: chat[3].trim(), time: chat[2] };
  const timed = TIMED_TURN.exec(line);
  if (timed) return { speaker: timed[2].trim(), text: timed[3].trim(), time: timed[1] };
  const irc = IRC_TURN.exec(line);
  if (irc) return { speaker: irc[2], text: irc[3].trim(), ...(irc[1] ? { time: irc[1] } : {}) };
  const m = NAMED_TURN.exec(line);
  if (m && named.has(m[1])) return { speaker: m[1], text: m[2].trim() };
  return null;
}

/**
 * The names that speak in `Name: text` lines, when there are enough such prose lines (and at
 * least two names) for the text to be a transcript; otherwise none, so "Decision: …" or a
 * one-off "Kenji: …" item stays what it is.
 */
function namedTurnSpeakers(lines: string[]): ReadonlySet<string> {
  const counts = new Map<string, number>();
  let turns = 0;
  for (const line of lines) {
    const m = NAMED_TURN.exec(line.trim());
    if (!m || ITEM.test(line)) continue;
    if (SPEAKER_STOP_WORDS.has(m[1].toLowerCase())) continue;
    turns++;
    counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
  }
  if (turns < MIN_NAMED_TURNS || counts.size < 2) return new Set();
  return new Set([...counts].filter(([, n]) => n >= 1).map(([name]) => name));
}

/** Text without bold/italic markers around it or inside it. */
function stripEmphasis(text: string): string {
  return text.replace(/(\*\*|__)(.+?)\1/g, "$2").replace(/~~(.+?)~~/g, "$1").trim();
}

/** Text with inline code spans replaced by spaces (offsets kept). */
export function blankCode(text: string): string {
  return text.replace(INLINE_CODE, (m) => " ".repeat(m.length));
}

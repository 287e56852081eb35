/**
 * @module Who speaks a line of a transcript or chat log: `Alice: …`, `**Alice**: …`,
 * `Alice (PM): …`, `[10:02] Alice: …`, `**alice** 10:02 …`, `<maria.g> …`, and the cues of
 * WebVTT and SRT captions (the `WEBVTT` header, `00:00:01.000 --> 00:00:04.000` timings, numeric
 * cue indexes, `<v Alice>` voice tags). Labels such as `Note:`, `TODO:` or `Decision:`, links
 * and times are not speakers (see SPEAKER_STOP_WORDS).
 */
import {
  ABSENT_LABEL,
  ACTION_LABEL,
  ATTENDEE_LABEL,
  CONTEXT_HEADING,
  DECISION_CUE,
  DECISION_HEADING,
  QUESTION_HEADING,
  SPEAKER_STOP_WORDS,
  TASK_HEADING,
  TODO_MARKER,
} from "./cues.ts";

/** A line's speaker and what they said. */
export interface Turn {
  speaker: string;
  text: string;
  /** A timestamp given with the turn ("00:01:02", "09:14"). */
  time?: string;
}

/** What the whole text says about how its speakers are written. */
export interface TranscriptShape {
  /** Names that speak in `Name: text` lines. */
  named: ReadonlySet<string>;
  /** WebVTT or SRT captions: cue timings, indexes and voice tags. */
  cues: boolean;
  /** Lines (0-based) of a caption file that carry no speech: see `cueMetaLines`. */
  cueMeta: ReadonlySet<number>;
  /** The line (0-based) of the `WEBVTT` header, else -1. */
  cueHeader: number;
}

/** A role after a name: `Alice (PM):`. */
const ROLE = String.raw`(?:[ \t]*\([^()\n]{1,30}\))?`;
/** `[00:01:02] Greg Olsen: text`, `00:01 Greg: text`, `(10:02) Ann (PM): text`. */
const TIMED_TURN = new RegExp(
  String
    .raw`^[[(]?(\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?)[\])]?\s+([^:<>[\]()]{1,40}?)${ROLE}(?::\*\*|\*\*:|:)\s+(.*)$`,
);
/** `**alice** 10:02 text`: a chat message with its header on the same line. */
const CHAT_TURN = /^\*\*([^*\n]{1,40})\*\*[ \t]+(\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?)[ \t]+(\S.*)$/u;
/** `**alice** 10:02`, `alice  10:02 AM`: a chat message header; the message follows. */
const CHAT_HEADER =
  /^(?:\*\*([^*\n]{1,40})\*\*|([\p{L}][\p{L}\p{N}._-]{0,39}))[ \t]+(?:—[ \t]*)?(\d{1,2}:\d{2}(?:\s?[AaPp][Mm])?)[ \t]*$/u;
/** `[09:14] <maria.g> text`, `<maria.g> text`. */
const IRC_TURN = /^(?:[[(]?(\d{1,2}:\d{2}(?::\d{2})?)[\])]?\s*)?<([^<>\s]{1,40})>\s*(.*)$/;
/** `Alice: text`, `Greg Olsen: text`, `**Alice:** text`, `Alice (PM): text`. */
const NAMED_TURN = new RegExp(
  String
    .raw`^(?:\*\*)?([\p{Lu}][\p{L}\p{M}.'’-]*(?:[ \t][\p{Lu}][\p{L}\p{M}.'’-]*){0,2})${ROLE}(?::\*\*|\*\*:|:)[ \t]+(.*)$`,
  "u",
);
/** A list item: its `Name: task` names an owner, not a speaker. */
const LIST_ITEM = /^[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]+/;
/**
 * What follows a label, not speech: a link ("Slides: https://…"), a time ("Start: 10:30") or a
 * date ("Date: 2026-11-26").
 */
const NOT_SPEECH =
  /^(?:<?[a-z][a-z0-9+.-]*:\/\/\S*>?|\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})\s*$/i;
/** Named turns needed before `Name: text` lines are read as a transcript. */
const MIN_NAMED_TURNS = 2;
/** Named turns that make a transcript without SPEECH in any of them. */
const MIN_PLAIN_TURNS = 3;
/**
 * Words of speech, not of notes: "Pricing: we keep three tiers" and "Trial: 14 days" label
 * topics, "Alice: I'll fix it" and "Bob: can you check?" are said. "we" is in both.
 */
const SPEECH =
  /(?<![\p{L}])(?:I(?:['’](?:m|ll|ve|d))?|[Mm]e|[Mm]y|[Yy]ou(?:['’](?:re|ll|ve))?|[Yy]our|[Ii]ch|[Jj]e|[Yy]o|[Ee]u)(?![\p{L}])/u;

/** `00:00:01.000 --> 00:00:04.000` (WebVTT, with cue settings after) or `00:00:01,000 --> …` (SRT). */
const CUE_TIMING =
  /^[ \t]*((?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{3})[ \t]+-->[ \t]+(?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{3}(?:[ \t].*)?$/;
const VTT_HEADER = /^\uFEFF?WEBVTT(?:[ \t].*)?$/;
/** WebVTT blocks that hold no speech. */
const VTT_BLOCK = /^(?:NOTE|STYLE|REGION)(?:[ \t].*)?$/;
/** `<v Alice>`, `<v.loud Alice Smith>`. */
const VOICE = /^<v(?:\.[\w.-]+)*[ \t]+([^<>]{1,60})>/;
/** Caption markup: `</v>`, `<i>`, `<c.yellow>`, `<00:00:02.500>`, `{\an8}`. */
const CUE_MARKUP = /<\/?(?:[a-z][\w.-]*(?:[ \t][^<>]*)?|\d{1,2}:\d{2}[^<>]*)>|\{\\[^{}]*\}/gi;

/** How the speakers of `lines` (raw text lines) are written. */
export function transcriptShape(lines: string[]): TranscriptShape {
  const first = lines.findIndex((l) => l.trim() !== "");
  const cueHeader = first >= 0 && VTT_HEADER.test(lines[first].trim()) ? first : -1;
  const cues = cueHeader >= 0 || lines.some((l) => CUE_TIMING.test(l));
  return cues
    ? { named: new Set(), cues, cueMeta: cueMetaLines(lines, cueHeader), cueHeader }
    : { named: namedSpeakers(lines), cues, cueMeta: new Set(), cueHeader };
}

/** The speaker and time of a chat message header alone on its line (`**alice** 10:02`). */
export function chatHeader(line: string): { name: string; time: string } | null {
  const m = CHAT_HEADER.exec(line);
  const name = m ? (m[1] ?? m[2]).trim() : "";
  return m && isSpeaker(name) ? { name, time: m[3] } : null;
}

/** A line's speaker turn, when it is one. */
export function turnOf(line: string, shape: TranscriptShape): Turn | null {
  const chat = CHAT_TURN.exec(line);
  if (chat) return turn(chat[1], chat[3], chat[2]);
  const timed = TIMED_TURN.exec(line);
  if (timed) return turn(timed[2], timed[3], timed[1]);
  const irc = IRC_TURN.exec(line);
  if (irc) return turn(irc[2], irc[3], irc[1]);
  const m = NAMED_TURN.exec(line);
  if (m && (shape.cues || shape.named.has(m[1]))) return turn(m[1], m[2]);
  return null;
}

/**
 * The lines of a caption file that carry no speech: the header, timings, cue indexes and
 * identifiers (the line just before a timing), and NOTE/STYLE/REGION blocks.
 */
function cueMetaLines(lines: string[], header: number): ReadonlySet<number> {
  const meta = new Set<number>(header >= 0 ? [header] : []);
  let block = false;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") {
      block = false;
      return;
    }
    // A NOTE block runs to the next blank line.
    if (VTT_BLOCK.test(line) && (i === 0 || lines[i - 1].trim() === "")) block = true;
    const identifier = i + 1 < lines.length && CUE_TIMING.test(lines[i + 1]);
    if (block || identifier || CUE_TIMING.test(line)) meta.add(i);
  });
  return meta;
}

/** The title a WebVTT header line gives after `WEBVTT` ("WEBVTT - Design sync"), else null. */
export function cueTitle(header: string): string | null {
  return header.trim().replace(/^\uFEFF?WEBVTT[ \t]*[-–—:]?[ \t]*/, "") || null;
}

/** The start time of a cue timing line, else null. */
export function cueTime(line: string): string | null {
  return CUE_TIMING.exec(line)?.[1] ?? null;
}

/** A caption's text without markup, with its speaker when a voice tag or `Name:` names one. */
export function cueText(line: string, shape: TranscriptShape): { text: string; speaker?: string } {
  const trimmed = line.trim();
  const voice = VOICE.exec(trimmed);
  const rest = (voice ? trimmed.slice(voice[0].length) : trimmed).replace(CUE_MARKUP, "")
    // "- text" marks a change of speaker inside one SRT cue, not a list item.
    .replace(/^-[ \t]+/, "").replace(/[ \t]{2,}/g, " ").trim();
  if (voice) {
    const named = turn(voice[1], rest);
    return named ?? { text: rest };
  }
  const named = turnOf(rest, shape);
  return named ? { text: named.text, speaker: named.speaker } : { text: rest };
}

/** A turn by `raw`, or null when `raw` is a label or what it says is not speech. */
function turn(raw: string, text: string, time?: string): Turn | null {
  const speaker = raw.replace(/\([^)]*\)/g, "").replace(/[*_]/g, "").trim();
  if (!isSpeaker(speaker) || NOT_SPEECH.test(text.trim())) return null;
  return { speaker, text: text.trim(), ...(time ? { time } : {}) };
}

/**
 * Whether `name` can be a speaker: not a label word ("Note", "Next steps", "TODO"), nor a label
 * the other rules read ("Resolution:", "Beschluss:", "Action item:", "Attendees:", "Tareas:") —
 * taking it for a speaker would strip the cue they need.
 */
function isSpeaker(name: string): boolean {
  if (!name || /^\d/.test(name)) return false;
  const lower = name.toLowerCase();
  if (SPEAKER_STOP_WORDS.has(lower) || SPEAKER_STOP_WORDS.has(lower.split(/\s+/)[0])) return false;
  const label = `${name}: `;
  // `search`, not `test`: ATTENDEE_LABEL is global, and `test` would move its lastIndex.
  return ![DECISION_CUE, ACTION_LABEL, TODO_MARKER, ATTENDEE_LABEL, ABSENT_LABEL].some((re) =>
    label.search(re) >= 0
  ) && ![TASK_HEADING, DECISION_HEADING, QUESTION_HEADING, CONTEXT_HEADING].some((re) =>
    name.search(re) >= 0
  );
}

/**
 * The names that speak in `Name: text` lines, when there are enough such lines (and at least
 * two names) for the text to be a transcript — two when one of them is SPEECH, else three;
 * otherwise none, so "Decision: …" or a one-off "Kenji: …" stays what it is. List items do not
 * count: "- Kenji: write the runbook" assigns.
 */
function namedSpeakers(lines: string[]): ReadonlySet<string> {
  const names = new Set<string>();
  let turns = 0;
  let speech = false;
  for (const line of lines) {
    const m = NAMED_TURN.exec(line.trim());
    if (!m || LIST_ITEM.test(line) || !turn(m[1], m[2])) continue;
    turns++;
    names.add(m[1]);
    speech ||= SPEECH.test(m[2]);
  }
  const enough = turns >= MIN_PLAIN_TURNS || (speech && turns >= MIN_NAMED_TURNS);
  return enough && names.size >= 2 ? names : new Set();
}

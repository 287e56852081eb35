/**
 * @module Meeting notes or a transcript read by rule: title, date, attendees (from "Attendees:"
 * lines and the speakers of a transcript), decisions, action items with owner and due date (open
 * tasks, and promises of future work: "I'll send it today" in a transcript belongs to its
 * speaker), and the questions nobody answered.
 */
import { terms } from "../text/terms.ts";
import { type Assignment, ownerPrefix } from "./assignment.ts";
import { calendarDate, dateIn, isDatePhrase } from "./calendar_words.ts";
import { findCommitments } from "./commitment_rules.ts";
import {
  ABSENT_LABEL,
  ACTION_LABEL,
  ATTENDEE_LABEL,
  COMMITMENT_CUE,
  NOT_A_PERSON,
  SPEAKER_STOP_WORDS,
  TODO_MARKER,
} from "./cues.ts";
import { decides, findDecisions, isDecision } from "./decision_rules.ts";
import { type NoteLine, noteLines } from "./note_lines.ts";
import { NearDuplicates } from "./near_duplicates.ts";
import { type NoteUnit, noteUnits } from "./note_units.ts";
import { findQuestions } from "./question_rules.ts";
import { findTasks } from "./task_rules.ts";

/** What a meeting produced. */
export interface MeetingNotes {
  title: string;
  /** YYYY-MM-DD when the text gives a full date, else the date as written, else null. */
  date: string | null;
  attendees: string[];
  decisions: string[];
  action_items: Assignment[];
  open_questions: string[];
}

/** Lines searched for the title's date and the attendee lists. */
const HEAD_LINES = 30;
const TITLE_CHARS = 200;
const ANAPHOR = /(?<![\p{L}])(?:that|it|this|them|those|one)(?![\p{L}])/iu;
/** An item said in the first person: its speaker's. */
const FIRST_PERSON = /^(?:i|me|my)(?:['’][a-z]+)?(?![\p{L}])/iu;
/** A line giving the meeting's date ("Date: Tuesday"). */
const DATE_LABEL = /^(?:date|when|datum|fecha|data|le|日時|日付)\s*[:：]/iu;
/** The longest first line read as a title, not a sentence. */
const TITLE_LINE_CHARS = 100;

/** Reads meeting notes or a transcript. */
export function readMeeting(text: string, o: { title?: string } = {}): MeetingNotes {
  const lines = noteLines(text);
  const first = titleLineOf(lines);
  const title = o.title ?? titleOf(first);
  // The title, date and attendee lines head the notes; none of them is an item, nor part of one.
  const units = noteUnits(lines.map((l) => isHeadLine(l, first) ? { ...l, kind: "meta" } : l));
  const people = new Set(attendeesOf(lines));
  const found = actionItems(units, people);
  return {
    title,
    date: dateOf(title, lines),
    // "- Bob: I'll ping legal" says Bob was there.
    attendees: attendeesOf(lines, found.said),
    decisions: findDecisions(units).map((d) => d.statement),
    action_items: found.items,
    open_questions: findQuestions(units).filter((q) => q.status === "open").map((q) => q.text),
  };
}

/**
 * The open tasks, then the promises of future work, without repeats; and who said a promise in
 * the first person after a "Name:" prefix.
 */
function actionItems(
  units: NoteUnit[],
  people: ReadonlySet<string>,
): { items: Assignment[]; said: string[] } {
  const items: Assignment[] = [];
  const said: string[] = [];
  const seen = new NearDuplicates();
  const add = (a: Assignment) => {
    if (!seen.isRepeat(a.task)) items.push(a);
  };
  for (const t of findTasks(units, { people })) {
    if (t.status !== "open") continue;
    // "Alice: TODO: I need to rotate the keys" is Alice's; "… for me" in her turn, too.
    const owner = t.speaker && (!t.owner || t.owner === "me") && FIRST_PERSON.test(t.task)
      ? t.speaker
      : t.owner;
    add({ task: t.task, ...(owner ? { owner } : {}), ...(t.due ? { due: t.due } : {}) });
  }
  for (const c of findCommitments(units)) {
    if (c.form !== "promise" || !c.future || promisedInDecision(units[c.unit])) continue;
    const u = units[c.unit];
    // "- Alice: I'll fix the login bug": a list of who says what, without a transcript's turns.
    const prefixed = !u.at.speaker && (!c.owner || c.owner === "me")
      ? ownerPrefix(u.text, { people })
      : null;
    if (prefixed && COMMITMENT_CUE.test(prefixed.rest)) {
      add({ task: prefixed.rest.trim(), owner: prefixed.owner, ...(c.due ? { due: c.due } : {}) });
      said.push(prefixed.owner);
      continue;
    }
    add({
      task: withContext(units, c.unit),
      ...(c.owner ? { owner: c.owner } : {}),
      ...(c.due ? { due: c.due } : {}),
    });
  }
  return { items, said };
}

/**
 * Whether a unit's promise is part of a decision ("We'll staff onboarding with two engineers,
 * decided by Carol"), not a promise of its own after one ("…agreed; I'll tell the team").
 */
function promisedInDecision(u: NoteUnit): boolean {
  if (!isDecision(u)) return false;
  const clauses = u.text.split(/;\s+/);
  return clauses.some((c) => COMMITMENT_CUE.test(c) && decides(c)) ||
    !clauses.some((c) => COMMITMENT_CUE.test(c));
}

/** A promise's text, preceded by what it refers to when it says only "I'll do that". */
function withContext(units: NoteUnit[], index: number): string {
  const u = units[index];
  const text = u.text.replace(/^(?:sure|ok(?:ay)?|yes|yeah|yep|right|good|great)[,.!]?\s+/i, "");
  const words = terms(text).length;
  if (!ANAPHOR.test(text) || words > 6 || index === 0) return text;
  const previous = units[index - 1];
  return `${previous.text.trim()} ${text}`;
}

/** The line the title comes from: the first heading, else the first line said by nobody. */
function titleLineOf(lines: NoteLine[]): NoteLine | undefined {
  const heading = lines.find((l) => l.kind === "heading");
  if (heading) return heading;
  const first = lines.find((l) => l.kind !== "blank" && l.kind !== "meta" && l.text);
  return first?.speaker ? undefined : first;
}

/** The title: its line's text, cut to TITLE_CHARS; "Meeting notes" when there is none. */
function titleOf(first: NoteLine | undefined): string {
  const title = (first?.text ?? "").replace(/\s+/g, " ").trim();
  if (!title) return "Meeting notes";
  return title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1).trimEnd()}…` : title;
}

/**
 * Whether a prose line heads the notes: the title line when it reads as a title (short, not a
 * sentence), or a date or attendee line among the first lines.
 */
function isHeadLine(line: NoteLine, title: NoteLine | undefined): boolean {
  if (line.kind !== "prose" || line.speaker || line.n > HEAD_LINES) return false;
  const text = line.text;
  if (line === title) {
    // "Alice: I'll fix the login bug" alone on the first line is said, not a title.
    return text.length <= TITLE_LINE_CHARS && !/[.!?。！？]$/u.test(text) &&
      !COMMITMENT_CUE.test(line.plain) && !TODO_MARKER.test(line.plain) &&
      !ACTION_LABEL.test(line.plain);
  }
  return DATE_LABEL.test(text) || isDateLine(text) || text.search(ATTENDEE_LABEL) === 0 ||
    ABSENT_LABEL.test(text);
}

/** "2026-11-26", "Tuesday, 26 November 2026": a line holding a date and nothing else. */
function isDateLine(text: string): boolean {
  const t = text.trim();
  if (isDatePhrase(t)) return true;
  const date = dateIn(t);
  return date !== null && calendarDate(t) !== null &&
    /^[\s,.·|/-]*(?:\d{4})?[\s,.]*$/.test(t.slice(0, date.start) + t.slice(date.end));
}

/** The meeting's date: a full date in the title or the first lines, else one as written. */
function dateOf(title: string, lines: NoteLine[]): string | null {
  const head = lines.slice(0, HEAD_LINES).map((l) => l.text).join("\n");
  const full = calendarDate(title) ?? calendarDate(head);
  if (full) return full;
  const written = [dateIn(title)].concat(
    lines.slice(0, HEAD_LINES).map((l) => DATE_LABEL.test(l.text) ? dateIn(l.text) : null),
  ).find((d) => d !== null && isDay(d.date));
  return written?.date ?? null;
}

/**
 * Whether a date phrase can name the day a meeting was held: "Q3 planning" or "end of quarter
 * review" name a period the meeting is about, not its date.
 */
function isDay(phrase: string): boolean {
  return !/^(?:q[1-4]\b|(?:end|start|beginning|middle|mid|this|next)\b)/i.test(phrase);
}

/** People named on attendee lines, then the speakers of a transcript (and `more`), in order. */
function attendeesOf(lines: NoteLine[], more: string[] = []): string[] {
  const names: string[] = [];
  const add = (name: string) => {
    const clean = name.replace(/\([^)]*\)/g, "").replace(/[*_]/g, "").replace(/[.:]+$/, "").trim();
    if (!isName(clean)) return;
    const lower = clean.toLowerCase();
    // "Alice" speaking in a transcript is the "Alice Chen" of the attendee line.
    if (names.some((n) => n.toLowerCase() === lower || n.toLowerCase().split(/\s+/)[0] === lower)) {
      return;
    }
    names.push(clean);
  };
  for (const line of lines.slice(0, HEAD_LINES)) {
    const text = line.kind === "meta" ? "" : line.text;
    if (!text || ABSENT_LABEL.test(text)) continue;
    const labels = [...text.matchAll(ATTENDEE_LABEL)];
    labels.forEach((m, i) => {
      const from = m.index! + m[0].length;
      const to = labels[i + 1]?.index ?? text.length;
      for (const part of splitNames(text.slice(from, to))) add(part);
    });
  }
  for (const line of lines) if (line.speaker) add(line.speaker);
  for (const name of more) add(name);
  return names;
}

function splitNames(list: string): string[] {
  return list.replace(/\([^)]*\)/g, "").split(
    /\s*(?:[,;·、，/&]|\s(?:and|und|y|e|et)\s)\s*/u,
  ).map((s) => s.trim()).filter(Boolean);
}

function isName(name: string): boolean {
  if (!name || name.length > 40 || name.split(/\s+/).length > 4) return false;
  const lower = name.toLowerCase();
  if (SPEAKER_STOP_WORDS.has(lower) || NOT_A_PERSON.has(lower)) return false;
  return /^(?:@?[\p{Lu}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{Ll}][\p{L}\p{N}._-]*$)/u
    .test(name) && !/\d{2}/.test(name);
}

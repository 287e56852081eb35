/**
 * @module Meeting notes or a transcript read by rule: title, date, attendees (from "Attendees:"
 * lines and the speakers of a transcript), decisions, action items with owner and due date (open
 * tasks, and promises of future work: "I'll send it today" in a transcript belongs to its
 * speaker), and the questions nobody answered.
 */
import { terms } from "../text/terms.ts";
import type { Assignment } from "./assignment.ts";
import { calendarDate, dateIn } from "./calendar_words.ts";
import { findCommitments } from "./commitment_rules.ts";
import {
  ABSENT_LABEL,
  ATTENDEE_LABEL,
  COMMITMENT_CUE,
  NOT_A_PERSON,
  SPEAKER_STOP_WORDS,
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

/** Reads meeting notes or a transcript. */
export function readMeeting(text: string, o: { title?: string } = {}): MeetingNotes {
  const lines = noteLines(text);
  const units = noteUnits(lines);
  const title = o.title ?? titleOf(lines);
  const attendees = attendeesOf(lines);
  const people = new Set(attendees);
  return {
    title,
    date: dateOf(title, lines),
    attendees,
    decisions: findDecisions(units).map((d) => d.statement),
    action_items: actionItems(units, people),
    open_questions: findQuestions(units).filter((q) => q.status === "open").map((q) => q.text),
  };
}

/** The open tasks, then the promises of future work, without repeats. */
function actionItems(units: NoteUnit[], people: ReadonlySet<string>): Assignment[] {
  const items: Assignment[] = [];
  const seen = new NearDuplicates();
  const add = (a: Assignment) => {
    if (!seen.isRepeat(a.task)) items.push(a);
  };
  for (const t of findTasks(units, { people })) {
    if (t.status !== "open") continue;
    add({ task: t.task, ...(t.owner ? { owner: t.owner } : {}), ...(t.due ? { due: t.due } : {}) });
  }
  for (const c of findCommitments(units)) {
    if (c.form !== "promise" || !c.future || promisedInDecision(units[c.unit])) continue;
    add({
      task: withContext(units, c.unit),
      ...(c.owner ? { owner: c.owner } : {}),
      ...(c.due ? { due: c.due } : {}),
    });
  }
  return items;
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

/** The first heading, else the first line. */
function titleOf(lines: NoteLine[]): string {
  const heading = lines.find((l) => l.kind === "heading");
  const first = heading ?? lines.find((l) => l.kind !== "blank" && l.kind !== "meta" && l.text);
  const title = (first?.text ?? "").replace(/\s+/g, " ").trim();
  if (!title) return "Meeting notes";
  return title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1).trimEnd()}…` : title;
}

/** The meeting's date: a full date in the title or the first lines, else one as written. */
function dateOf(title: string, lines: NoteLine[]): string | null {
  const head = lines.slice(0, HEAD_LINES).map((l) => l.text).join("\n");
  const full = calendarDate(title) ?? calendarDate(head);
  if (full) return full;
  const written = [dateIn(title)].concat(
    lines.slice(0, HEAD_LINES).map((l) =>
      /^(?:date|when|datum|fecha|data|le|日時|日付)\s*[:：]/iu.test(l.text) ? dateIn(l.text) : null
    ),
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

/** People named on attendee lines, then the speakers of a transcript, in order. */
function attendeesOf(lines: NoteLine[]): string[] {
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

/**
 * @module Commitments in a note: someone binding themselves to future work ("I'll send it
 * today", "we will run both systems", "Dana will write the plan") and waiting on others ("still
 * waiting on the signed DPA"). Questions, negations and conditions promise nothing.
 */
import { dateIn, dueIn } from "./calendar_words.ts";
import { COMMITMENT_CUE, NOT_A_PERSON, WAITING_CUE } from "./cues.ts";
import { decides } from "./decision_rules.ts";
import type { NoteUnit } from "./note_units.ts";

/** A commitment found in a note. */
export interface FoundCommitment {
  text: string;
  line: number;
  /** Who committed: a named person, the speaker of an "I'll", or "me" in one's own notes. */
  owner?: string;
  due?: string;
  /** A promise of future work, or waiting on someone else. */
  form: "promise" | "waiting";
  /** A promise in the future tense ("I'll", "will", "going to"), not a present plan. */
  future: boolean;
  /** The unit it was found in, by index. */
  unit: number;
  speaker?: string;
}

const NEGATED =
  /(?<![\p{L}])(?:won'?t|will not|wo n't|can'?t|cannot|not going to|never)(?![\p{L}])/iu;
const FUTURE_I = /(?<![\p{L}])(?:i|we)\s*(?:'|’)ll|(?:i|we)\s+will|going\s+to(?![\p{L}])/iu;
const NAMED =
  /(?:^|[.;:!]\s+|,\s+(?:and\s+)?)(@?[\p{Lu}][\p{Ll}\p{M}'’-]+)\s+will\s+(?!be\b|not\b|have\b)\p{Ll}/u;
const CONDITION = /^(?:if|when|unless|once|whether|in case)\b/i;
const RELATIVE_DUE =
  /(?<![\p{L}])(?:today|tonight|tomorrow|this (?:week|sprint|month)|next week|after (?:this|the) (?:call|meeting))(?![\p{L}])/iu;

/** A chat message reporting work done ("fixed ✅", "done, error rate back to normal"). */
const DONE =
  /^(?:fixed|done|shipped|merged|deployed|sent|posted|finished|erledigt|fait|hecho|fatto|feito)(?![\p{L}])|✅/iu;
/** Units after a promise searched for its speaker reporting it done. */
const DONE_WINDOW = 12;

/** Whether the promise's speaker later reports it done, in a transcript or chat log. */
function fulfilled(units: NoteUnit[], index: number): boolean {
  const speaker = units[index].at.speaker;
  if (!speaker) return false;
  const later = units.slice(index + 1, index + 1 + DONE_WINDOW);
  return later.some((u) => u.at.speaker === speaker && DONE.test(u.text.trim()));
}

/** Every commitment of a note's units, in order. */
export function findCommitments(units: NoteUnit[]): FoundCommitment[] {
  const out: FoundCommitment[] = [];
  units.forEach((u, index) => {
    const text = u.text.trim();
    if (/[?？]\s*$/.test(text) || u.at.struck || u.at.checkbox === "done") return;
    const speaker = u.at.speaker;
    const base = { text, line: u.line, unit: index, ...(speaker ? { speaker } : {}) };
    const due = dueIn(text)?.due ?? RELATIVE_DUE.exec(text)?.[0] ??
      (/\bby\b/i.test(text) ? dateIn(text)?.date : undefined);
    if (WAITING_CUE.test(u.plain)) {
      out.push({ ...base, form: "waiting", future: false, ...(speaker ? { owner: speaker } : {}) });
      return;
    }
    if (NEGATED.test(u.plain) || CONDITION.test(text)) return;
    // "We'll staff onboarding with two engineers, decided by Carol" records a decision.
    const promise = u.text.split(/;\s+/).find((c) => COMMITMENT_CUE.test(c) || NAMED.test(c));
    if (promise && decides(promise)) return;
    const named = NAMED.exec(u.plain);
    if (named && !NOT_A_PERSON.has(named[1].toLowerCase().replace(/^@/, ""))) {
      out.push({
        ...base,
        form: "promise",
        future: true,
        owner: named[1].replace(/^@/, ""),
        ...(due ? { due } : {}),
      });
      return;
    }
    const cue = COMMITMENT_CUE.exec(u.plain);
    if (!cue || fulfilled(units, index)) return;
    const first = /^\W*(?:i|i'|i’)/i.test(cue[0]);
    out.push({
      ...base,
      form: "promise",
      future: FUTURE_I.test(cue[0]),
      ...(speaker ? { owner: speaker } : first ? { owner: "me" } : {}),
      ...(due ? { due } : {}),
    });
  });
  return out;
}

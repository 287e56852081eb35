/**
 * @module Questions in a note and whether they were answered later in it. A question is open
 * when it is listed under "Open questions", marked "Open:", met with "not sure" / "let's park
 * that", or nothing answers it: in a transcript no other speaker replies; in prose it ends its
 * paragraph with no answer after it.
 */
import {
  ACTION_LABEL,
  DEFERRAL,
  DEFERRAL_JA,
  QUESTION_HEADING,
  TODO_MARKER,
  UNDECIDED_CUE,
  UNDECIDED_CUE_JA,
} from "./cues.ts";
import { lastInParagraph, type NoteUnit, paragraphOf } from "./note_units.ts";

/** A question found in a note. */
export interface FoundQuestion {
  text: string;
  line: number;
  status: "open" | "closed";
  speaker?: string;
}

const QUESTION_END = /[?？]\s*(?:\)|\*\*|_)?$/u;
const INDIRECT =
  /(?<![\p{L}])(?:asked|asks|asking|wonder(?:s|ed|ing)?|question(?: from [\p{L}.-]+)?[:：]?|unclear|not sure)\s+(?:whether|if|who|what|when|how|why|which)(?![\p{L}])/iu;
const OPEN_LABEL = /^(?:open|open question|question|offen|abierta|ouvert|aperta|q)\s*[:：]/iu;
const ANSWER_START =
  /^(?:a|answer|antwort|respuesta|réponse|risposta|resposta|→|=>|->|yes|no|yep|nope|sure|checked|resolved|done|confirmed|ja|nein|sí|si|non|oui|não|sim)(?![\p{L}])/iu;
/** Replies that only acknowledge ("ok", "hmm") answer nothing. */
const NOT_AN_ANSWER =
  /^(?:ok|okay|hmm+|good question|great question|interesting|thanks|right)[.!]*$/iu;
/** Units after a transcript question searched for a reply. */
const REPLY_WINDOW = 3;
const MIN_WORDS = 3;

/** Every question of a note's units, with whether it is still open. */
export function findQuestions(units: NoteUnit[]): FoundQuestion[] {
  const out: FoundQuestion[] = [];
  units.forEach((u, i) => {
    if (!isQuestion(u)) return;
    const text = u.text.replace(/^\s*(?:question(?: from [\p{L}.-]+)?|q)\s*[:：]\s*/iu, "");
    out.push({
      text,
      line: u.line,
      status: answered(units, i) ? "closed" : "open",
      ...(u.at.speaker ? { speaker: u.at.speaker } : {}),
    });
  });
  return out;
}

/** Whether a unit asks something (a direct question, or "asked whether …"). */
function isQuestion(u: NoteUnit): boolean {
  if (u.kind === "row") return false;
  const words = u.plain.split(/\s+/).filter(Boolean).length;
  const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(u.plain);
  if (!cjk && words < MIN_WORDS) return false;
  return QUESTION_END.test(u.plain.trim()) || INDIRECT.test(u.plain) ||
    (cjk && /(?:のか|ですか|ますか)/u.test(u.plain) && /質問/u.test(u.plain));
}

function answered(units: NoteUnit[], i: number): boolean {
  const u = units[i];
  if (u.at.struck || u.at.checkbox === "done") return true;
  if (OPEN_LABEL.test(u.text) || deferred(u.text)) return false;
  const heading = u.at.section.at(-1) ?? "";
  const listedOpen = QUESTION_HEADING.test(heading) || QUESTION_HEADING.test(u.at.label ?? "");
  if (u.at.speaker) return repliedTo(units, i);
  const next = units[i + 1];
  if (!next) return false;
  if (u.kind === "item") {
    // An answer is a nested item under the question.
    if (next.kind === "item" && next.indent > u.indent) return !deferred(next.text);
    if (next.para === u.para && !isQuestion(next)) return !deferred(next.text);
    return false;
  }
  if (listedOpen) return false;
  if (!lastInParagraph(units, i)) {
    return !isQuestion(next) && !deferred(next.text) && !NOT_AN_ANSWER.test(next.text);
  }
  return ANSWER_START.test(next.text.trim()) && !deferred(next.text);
}

/** In a transcript: whether another speaker replied with something other than a deferral. */
function repliedTo(units: NoteUnit[], i: number): boolean {
  const asker = units[i].at.speaker;
  // The asker going on in the same turn ("…? Checked: yes") can answer it too.
  const same = units[i + 1];
  if (same && same.para === units[i].para && !isQuestion(same) && ANSWER_START.test(same.text)) {
    return !deferred(same.text);
  }
  for (let j = i + 1; j < Math.min(units.length, i + 1 + REPLY_WINDOW); j++) {
    const reply = units[j];
    if (!reply.at.speaker || reply.at.speaker === asker) continue;
    const paragraph = paragraphOf(units, j);
    const turn = paragraph.map((x) => x.text).join(" ");
    if (deferred(turn) || NOT_AN_ANSWER.test(reply.text)) return false;
    // "TODO: add the data team to CODEOWNERS" plans work; it answers nothing.
    if (TODO_MARKER.test(reply.plain) || ACTION_LABEL.test(reply.plain)) return false;
    return !isQuestion(reply) || ANSWER_START.test(reply.text.trim()) ||
      paragraph.some((x) => !isQuestion(x));
  }
  return false;
}

function deferred(text: string): boolean {
  return DEFERRAL.test(text) || DEFERRAL_JA.test(text) || UNDECIDED_CUE_JA.test(text) ||
    /\b(?:not decided|undecided|no decision)\b/i.test(text) && UNDECIDED_CUE.test(text);
}

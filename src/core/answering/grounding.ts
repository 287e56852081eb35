/**
 * @module Grounded answers (memory_ask `strict`): whether retrieved passages answer a question,
 * judged without a model. A source sentence supports an answer when, with its heading and title,
 * it holds the question's words — the rare ones above all, so "Who owns the billing migration?"
 * is not answered by "The billing migration meeting is on Tuesday" — and holds the kind of thing
 * asked for: a name for "who", a date or time for "when", a number for "how many".
 */
import { type AskCitationEvent } from "./citations.ts";
import { type AnswerSource, NOT_IN_MEMORY } from "../ports/language_model.ts";
import { dateIn } from "../synthesis/calendar_words.ts";
import { splitSentences } from "../text/sentences.ts";
import { overlap, STOPWORDS, terms } from "../text/terms.ts";

/** A source sentence that answers the question. */
export interface Support {
  source: AnswerSource;
  text: string;
  coverage: number;
}

/** The share of the question's (weighted) words a supporting sentence and its context must hold. */
const MIN_COVERAGE = 0.75;
/** Most sentences in a grounded extractive answer. */
const MAX_SENTENCES = 3;
/** How much of a cited claim's words its passage must hold for a model's answer to count. */
const CLAIM_IN_SOURCE = 0.4;
const MIN_CHARS = 12;
/** Longest quotation of the question in a not-in-memory answer. */
const QUESTION_ECHO = 160;
/** Words of a question about memory itself, not about its topic. */
const GENERIC = new Set(
  ["know", "tell", "memory", "note", "say", "said", "anything", "something", "remember", "find"],
);

type Expected = "person" | "time" | "number" | "place" | null;

/** The source sentences that answer the question, best first (none when nothing does). */
export function supportingSentences(question: string, sources: AnswerSource[]): Support[] {
  const wanted = [...new Set(terms(question))].filter((t) => !GENERIC.has(t));
  if (wanted.length === 0) return [];
  const expected = expectedAnswer(question);
  const candidates: { source: AnswerSource; text: string; own: string[]; context: string[] }[] = [];
  for (const source of sources) {
    let heading = terms(source.title);
    for (const s of splitSentences(source.text)) {
      if (s.kind === "heading") {
        heading = [...terms(source.title), ...terms(s.text)];
        continue;
      }
      if (s.text.length < MIN_CHARS) continue;
      candidates.push({ source, text: s.text, own: terms(s.text), context: heading });
    }
  }
  // Rare question words decide: a passage holding only the common ones does not answer.
  const weights = new Map<string, number>();
  for (const t of wanted) {
    const df = candidates.filter((c) => c.own.includes(t) || c.context.includes(t)).length;
    weights.set(t, Math.log(1 + (candidates.length + 1) / (df + 0.5)));
  }
  const supports: Support[] = [];
  for (const c of candidates) {
    if (overlap(wanted, c.own) === 0) continue;
    const coverage = overlap(wanted, [...c.own, ...c.context], { weights });
    if (coverage < MIN_COVERAGE || !holds(expected, c.text, question)) continue;
    supports.push({ source: c.source, text: c.text, coverage });
  }
  return supports.sort((a, b) => b.coverage - a.coverage || a.source.n - b.source.n);
}

/** A grounded answer from the sentences alone: each followed by its `[n]`, or "Not in memory…". */
export function groundedAnswerText(question: string, sources: AnswerSource[]): string {
  const picked: Support[] = [];
  for (const s of supportingSentences(question, sources)) {
    if (picked.length >= MAX_SENTENCES) break;
    if (!picked.some((p) => p.text === s.text)) picked.push(s);
  }
  if (picked.length === 0) return notInMemory(question, sources);
  return picked.map((p) => `${p.text} [${p.source.n}]`).join(" ");
}

/** The answer when the passages do not answer: it names the closest ones. */
export function notInMemory(question: string, sources: AnswerSource[]): string {
  const q = question.replace(/\s+/g, " ").trim();
  const echo = q.length > QUESTION_ECHO ? `${q.slice(0, QUESTION_ECHO).trimEnd()}…` : q;
  const paths = [...new Set(sources.map((s) => s.path))].slice(0, 3);
  return paths.length === 0
    ? `${NOT_IN_MEMORY}: nothing stored matches "${echo}".`
    : `${NOT_IN_MEMORY}: the closest passages (${paths.join(", ")}) do not answer "${echo}".`;
}

/**
 * Whether a model's answer is grounded: it cites at least one passage, and every cited claim
 * shares enough of its words with the passage it cites.
 */
export function citedClaimsHold(
  answer: string,
  o: { citations: AskCitationEvent[]; sources: AnswerSource[] },
): boolean {
  const { citations, sources } = o;
  if (answer.trimStart().startsWith(NOT_IN_MEMORY) || citations.length === 0) return false;
  const byChunk = new Map(sources.map((s) => [s.chunk_id, s]));
  return citations.every((c) => {
    const source = byChunk.get(c.chunk_id);
    const claim = terms(answer.slice(c.answer_start, c.answer_end));
    return source !== undefined &&
      (claim.length === 0 ||
        overlap(claim, terms(`${source.title} ${source.text}`)) >= CLAIM_IN_SOURCE);
  });
}

/** What kind of thing the question asks for. */
function expectedAnswer(question: string): Expected {
  const q = question.toLowerCase();
  if (/\b(?:who|whom|whose)\b/.test(q)) return "person";
  if (/\b(?:when|what time|what date|which day|how long ago|since when)\b/.test(q)) return "time";
  if (/\b(?:how many|how much|how often|what percentage|what number|how long|how big)\b/.test(q)) {
    return "number";
  }
  if (/\bwhere\b/.test(q)) return "place";
  return null;
}

/** Whether a sentence holds the kind of thing asked for (anything, for open questions). */
function holds(expected: Expected, sentence: string, question: string): boolean {
  if (expected === null) return true;
  if (expected === "time") {
    return dateIn(sentence) !== null || /\d/.test(sentence) ||
      /\b(?:daily|weekly|monthly|yearly|every|morning|afternoon|evening|night|noon|midnight|ago|since|until|utc|year|quarter)\b/i
        .test(sentence);
  }
  if (expected === "number") {
    return /\d/.test(sentence) ||
      /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand|million|billion|half|twice|once|several|few)\b/i
        .test(sentence);
  }
  const asked = new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const names = (sentence.match(/@?[\p{Lu}][\p{L}\p{M}'’-]+/gu) ?? []).filter((w) => {
    const lower = w.toLowerCase().replace(/^@/, "");
    return !asked.has(lower) && !STOPWORDS.has(lower) && lower !== "i" && dateIn(w) === null;
  });
  if (expected === "person") {
    return names.length > 0 || /@\w|\b(?:team|squad|guild|group|department)\b/i.test(sentence);
  }
  return names.length > 0 || /\b(?:in|at|on|from)\s+(?:the\s+)?\p{L}/iu.test(sentence);
}

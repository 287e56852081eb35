/**
 * @module The extractive engine's answers: the source sentences sharing the most (rare) words
 * with the question, copied verbatim and each followed by its source's `[n]` marker.
 */
import type { AnswerRequest, AnswerSource } from "../../core/ports/language_model.ts";
import { splitSentences } from "../../core/text/sentences.ts";
import { overlap, terms } from "../../core/text/terms.ts";

/** Most sentences in one answer. */
const MAX_SENTENCES = 4;
/** Longest answer, markers and separators included. */
const MAX_CHARS = 1200;
/** Shorter fragments ("See below.") answer nothing. */
const MIN_CHARS = 12;
const MIN_TERMS = 2;
/** Two sentences sharing this much of their words (Jaccard) say the same thing. */
const NEAR_DUPLICATE = 0.7;
/** A sentence scoring below this share of the best one is noise next to it. */
const WEAK_SHARE = 0.35;
/** How much conciseness counts next to coverage of the question. */
const DENSITY_WEIGHT = 0.1;
/** How much a question word found only in the heading above a sentence counts. */
const CONTEXT_WEIGHT = 0.5;
const EPSILON = 1e-9;
/** Longest quotation of the question in the nothing-found answer. */
const QUESTION_ECHO = 200;

interface Candidate {
  source: AnswerSource;
  text: string;
  start: number;
  terms: Set<string>;
  /** Terms of the heading above the sentence (else the source title). */
  context: string[];
  score: number;
}

/** Answers from the sources, streaming one sentence-with-marker piece at a time. */
export async function extractiveAnswer(request: AnswerRequest): Promise<string> {
  const { signal, onDelta } = request;
  signal?.throwIfAborted();
  const pieces = pick(rank(request)).map((c, i) =>
    `${i === 0 ? "" : " "}${c.text} [${c.source.n}]`
  );
  if (pieces.length === 0) pieces.push(nothingFound(request.question));
  for (const piece of pieces) {
    signal?.throwIfAborted();
    await onDelta?.(piece);
  }
  signal?.throwIfAborted();
  return pieces.join("");
}

/** The honest answer when no sentence shares a word with the question. */
function nothingFound(question: string): string {
  const q = question.replace(/\s+/g, " ").trim();
  const echo = q.length > QUESTION_ECHO ? `${q.slice(0, QUESTION_ECHO).trimEnd()}…` : q;
  return `I found nothing in memory that answers "${echo}".`;
}

/** Every usable source sentence sharing a term with the question, best first. */
function rank(request: AnswerRequest): Candidate[] {
  const question = [...new Set(terms(request.question))];
  if (question.length === 0) return [];
  const candidates: Candidate[] = [];
  const sources = [...request.sources].sort((a, b) => a.n - b.n);
  for (const source of sources) {
    let context = terms(source.title);
    for (const s of splitSentences(source.text)) {
      if (s.kind === "heading") context = terms(s.text);
      if (s.kind === "heading" || s.text.length < MIN_CHARS) continue;
      const words = terms(s.text);
      if (words.length < MIN_TERMS) continue;
      const start = s.start;
      candidates.push({ source, text: s.text, start, terms: new Set(words), context, score: 0 });
    }
  }
  // Rare question words decide more than common ones (inverse document frequency).
  const weights = new Map<string, number>();
  for (const t of question) {
    const df = candidates.filter((c) => c.terms.has(t)).length;
    weights.set(t, Math.log(1 + candidates.length / (df + 0.5)));
  }
  const scored = candidates.filter((c) => {
    const words = [...c.terms];
    const own = overlap(question, words, { weights });
    // A word only the section heading shares counts half: "## Database" above "PostgreSQL 16."
    const coverage = own +
      CONTEXT_WEIGHT * (overlap(question, [...words, ...c.context], { weights }) - own);
    if (coverage === 0) return false;
    const matched = question.filter((t) => c.terms.has(t)).length;
    c.score = coverage + DENSITY_WEIGHT * (matched / c.terms.size);
    return true;
  });
  return scored.sort((a, b) =>
    Math.abs(b.score - a.score) > EPSILON
      ? b.score - a.score
      : a.source.n - b.source.n || a.start - b.start
  );
}

/** The best sentences that fit the limits, skipping weak ones and near-duplicates. */
function pick(ranked: Candidate[]): Candidate[] {
  const picked: Candidate[] = [];
  let used = 0;
  const best = ranked[0]?.score ?? 0;
  for (const c of ranked) {
    if (picked.length >= MAX_SENTENCES || c.score < best * WEAK_SHARE) break;
    if (picked.some((p) => jaccard(p.terms, c.terms) >= NEAR_DUPLICATE)) continue;
    const cost = c.text.length + ` [${c.source.n}]`.length + (picked.length > 0 ? 1 : 0);
    if (used + cost <= MAX_CHARS) {
      picked.push(c);
      used += cost;
    } else if (picked.length === 0) {
      // An overlong best sentence is cut at a word boundary: a prefix is still a verbatim quote.
      const room = MAX_CHARS - ` [${c.source.n}]`.length;
      const cut = c.text.slice(0, room + 1).replace(/\s+\S*$/, "").trimEnd();
      picked.push({ ...c, text: cut.length > 0 ? cut : c.text.slice(0, room) });
      used = MAX_CHARS;
    }
  }
  return picked;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let both = 0;
  for (const t of a) if (b.has(t)) both++;
  const either = a.size + b.size - both;
  return either === 0 ? 1 : both / either;
}

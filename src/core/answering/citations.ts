/**
 * @module Citations for an answer: each `[n]` marker cites source n for the text before it (back
 * to the previous marker or the start of its sentence); the quote is the sentence of that source
 * that shares the most words with the cited text, copied verbatim. An answer without markers gets
 * a citation for each sentence that clearly comes from one source.
 */
import type { AnswerSource } from "../ports/language_model.ts";
import { splitSentences } from "../text/sentences.ts";
import { overlap, terms } from "../text/terms.ts";

/** AskCitationEvent (docs/tools.md#memory_ask). */
export interface AskCitationEvent {
  type: "citation";
  chunk_id: string;
  document_id: string;
  answer_start: number;
  answer_end: number;
  quote: string;
}

/** How much of an unmarked answer sentence a source sentence must cover to be cited. */
const UNMARKED_MIN_OVERLAP = 0.5;

const MARKER = /\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g;

/** Citations for `answer` given the sources it was written from. */
export function citeAnswer(answer: string, sources: AnswerSource[]): AskCitationEvent[] {
  const byNumber = new Map(sources.map((s) => [s.n, s]));
  const sentences = splitSentences(answer);
  const out: AskCitationEvent[] = [];
  const seen = new Set<string>();
  let lastEnd = 0;
  let lastSpan: [number, number] | null = null;
  for (const m of answer.matchAll(MARKER)) {
    const at = m.index!;
    // The sentence the marker closes: the one containing the text just before it.
    const sentence = sentences.filter((s) => s.start < at).at(-1);
    let start = Math.max(lastEnd, sentence?.start ?? 0);
    let end = at;
    const adjacent = lastSpan !== null && answer.slice(lastEnd, at).trim() === "";
    lastEnd = at + m[0].length;
    while (start < end && /\s/.test(answer[start])) start++;
    while (end > start && /\s/.test(answer[end - 1])) end--;
    if (end <= start && adjacent) {
      // "[1][2]": the second marker cites the same text as the first.
      [start, end] = lastSpan!;
    } else if (end <= start) {
      // "Claim. [1]": the marker follows its sentence's full stop.
      const previous = sentences.filter((s) => s.end <= at).at(-1);
      if (!previous) continue;
      start = previous.start;
      end = previous.end;
    }
    lastSpan = [start, end];
    const claim = answer.slice(start, end);
    for (const n of m[1].split(/[,;]/).map((x) => Number(x.trim()))) {
      const source = byNumber.get(n);
      if (!source) continue;
      const key = `${n}:${start}:${end}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(citation(source, { start, end, quote: bestQuote(claim, source.text) }));
    }
  }
  if (out.length > 0) return out;
  for (const s of sentences) {
    let best: { source: AnswerSource; quote: string; score: number } | null = null;
    for (const source of sources) {
      const quote = bestQuote(s.text, source.text);
      const score = overlap(terms(s.text), terms(quote));
      if (!best || score > best.score) best = { source, quote, score };
    }
    if (best && best.score >= UNMARKED_MIN_OVERLAP) {
      out.push(citation(best.source, { start: s.start, end: s.end, quote: best.quote }));
    }
  }
  return out;
}

function citation(
  source: AnswerSource,
  o: { start: number; end: number; quote: string },
): AskCitationEvent {
  return {
    type: "citation",
    chunk_id: source.chunk_id,
    document_id: source.document_id,
    answer_start: o.start,
    answer_end: o.end,
    quote: o.quote,
  };
}

/**
 * The source sentence sharing the most words with `claim` (verbatim); for a text without
 * sentences, its first `fallbackChars` characters (default 512).
 */
export function bestQuote(
  claim: string,
  text: string,
  options: { fallbackChars?: number } = {},
): string {
  const claimTerms = terms(claim);
  let best = "";
  let bestScore = -1;
  for (const s of splitSentences(text)) {
    const score = overlap(claimTerms, terms(s.text));
    if (score > bestScore) {
      best = s.text;
      bestScore = score;
    }
  }
  return best || text.trim().slice(0, options.fallbackChars ?? 512);
}

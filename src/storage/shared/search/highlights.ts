/**
 * @module Highlights of a returned hit, made from the term spans found in its text (only hits
 * that are returned get them): the title with its matches in `**`, and a snippet of the body —
 * the window of SNIPPET_TOKENS tokens holding the most distinct terms, earliest first, as FTS5's
 * snippet() chooses it, with `…` where it cuts the text.
 */
import { type Span, TOKEN, TOKEN_CHAR } from "./term_match.ts";

/** Tokens in a body snippet (what `snippet(…, 24)` showed before). */
const SNIPPET_TOKENS = 24;

const MARK = "**";
const ELLIPSIS = "…";

/** `text` with each span wrapped in `**` (overlapping spans merged). */
export function markSpans(text: string, spans: readonly Span[]): string {
  let out = "";
  let at = 0;
  for (const [start, end] of merged(spans)) {
    out += text.slice(at, start) + MARK + text.slice(start, end) + MARK;
    at = end;
  }
  return out + text.slice(at);
}

/** The best window of the body with its matches marked, or null when nothing matched in it. */
export function snippet(text: string, spans: readonly Span[]): string | null {
  if (spans.length === 0) return null;
  // One global pattern per call: its lastIndex is the scan position, so it is never shared.
  const tokens = new RegExp(TOKEN.source, "gu");
  if (tokenEnd(text, { tokens, from: 0, n: SNIPPET_TOKENS + 1 }) === -1) {
    return markSpans(text, spans);
  }
  let best = { start: 0, end: 0, terms: -1 };
  for (const s of spans) {
    // Start a little before the match, so it has context on its left.
    const start = tokensBack(text, s.start, 2);
    const end = tokenEnd(text, { tokens, from: start, n: SNIPPET_TOKENS });
    const window = { start, end: end === -1 ? text.length : end };
    const terms = new Set(
      spans.filter((x) => x.start >= window.start && x.end <= window.end)
        .map((x) => x.term),
    ).size;
    if (terms > best.terms) best = { ...window, terms };
  }
  const { start, end } = best;
  const inside = spans.filter((s) => s.start >= start && s.end <= end)
    .map((s) => ({ ...s, start: s.start - start, end: s.end - start }));
  return (start > 0 ? ELLIPSIS : "") + markSpans(text.slice(start, end), inside) +
    (end < text.length ? ELLIPSIS : "");
}

/** The offset after the `n`th token from `from`, or -1 when the text has fewer. */
function tokenEnd(text: string, o: { tokens: RegExp; from: number; n: number }): number {
  o.tokens.lastIndex = o.from;
  let end = -1;
  for (let i = 0; i < o.n; i++) {
    const m = o.tokens.exec(text);
    if (!m) return -1;
    end = m.index + m[0].length;
  }
  return end;
}

/** The start of the token `n` tokens before the one at `at` (or of the text). */
function tokensBack(text: string, at: number, n: number): number {
  let i = at;
  for (let k = 0; k < n && i > 0; k++) {
    let j = i;
    while (j > 0 && !TOKEN_CHAR.test(text[j - 1])) j--;
    if (j === 0) return i;
    while (j > 0 && TOKEN_CHAR.test(text[j - 1])) j--;
    i = j;
  }
  return i;
}

function merged(spans: readonly Span[]): [number, number][] {
  const out: [number, number][] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && s.start <= last[1]) last[1] = Math.max(last[1], s.end);
    else out.push([s.start, s.end]);
  }
  return out;
}

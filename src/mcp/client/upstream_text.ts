/**
 * @module Upstream text (stderr, stray stdout lines, error messages, URLs) made safe to carry in
 * engram's own messages: terminal-active characters shown as visible escapes, lines joined, and
 * length bounded. An upstream is untrusted, and its words end up on operators' terminals.
 *
 * The character class matches src/cli/terminal_text.ts; it is repeated here because the client
 * layer must not import from the CLI (dependencies point inward).
 */

// deno-lint-ignore no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufdd0-\ufdef]/g;

/** `text` with terminal-active characters as `\xNN` / `\uNNNN`; newlines and tabs kept. */
export function neutralise(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * One line of at most `max` characters from the END of `text` (the latest output says most about
 * why a process died): neutralised, newlines shown as ` | `, surrounding space trimmed.
 */
export function tailExcerpt(text: string, max = 400): string {
  const oneLine = neutralise(text.trim()).replace(/\s*\n\s*/g, " | ").replace(/\t/g, " ");
  return oneLine.length <= max ? oneLine : `…${oneLine.slice(oneLine.length - max + 1)}`;
}

/** One line of at most `max` characters from the START of `text`, neutralised. */
export function headExcerpt(text: string, max = 200): string {
  const oneLine = neutralise(text.trim()).replace(/\s*\n\s*/g, " | ").replace(/\t/g, " ");
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

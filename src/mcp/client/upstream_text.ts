/**
 * @module Upstream text (stderr, stray stdout lines, error messages, URLs) made safe to carry in
 * engram's own messages: terminal-active characters shown as visible escapes, lines joined, and
 * length bounded. An upstream is untrusted, and its words end up on operators' terminals.
 */
import { neutraliseTerminalText } from "../../core/text/terminal_text.ts";

/** `text` with terminal-active characters as `\xNN` / `\uNNNN`; newlines and tabs kept. */
export const neutralise = neutraliseTerminalText;

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

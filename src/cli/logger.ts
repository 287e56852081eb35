/** @module A leveled logger on stderr; stdout belongs to the protocol or the command's output. */
import type { Logger } from "../core/logger.ts";
import { LOG_LEVELS } from "../config/schema.ts";
import { neutraliseTerminalText } from "../core/text/terminal_text.ts";

type Level = (typeof LOG_LEVELS)[number];

/** A logger writing `engram LEVEL: message {fields}` lines to stderr at or above `level`. */
export function stderrLogger(level: Level): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const encoder = new TextEncoder();
  const emit = (lvl: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(lvl) < min) return;
    const extra = fields && Object.keys(fields).length ? " " + JSON.stringify(fields) : "";
    // Log lines carry names and errors from content and upstream servers: shown, never obeyed.
    const text = neutraliseTerminalText(`engram ${lvl}: ${message}${extra}`);
    Deno.stderr.writeSync(encoder.encode(`${text}\n`));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warning"), error: emit("error") };
}

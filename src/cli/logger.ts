/** @module A leveled logger on stderr; stdout belongs to the protocol or the command's output. */
import type { Logger } from "../core/logger.ts";
import { LOG_LEVELS } from "../config/schema.ts";

type Level = (typeof LOG_LEVELS)[number];

/** A logger writing `engram LEVEL: message {fields}` lines to stderr at or above `level`. */
export function stderrLogger(level: Level): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const encoder = new TextEncoder();
  const emit = (lvl: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(lvl) < min) return;
    const extra = fields && Object.keys(fields).length ? " " + JSON.stringify(fields) : "";
    Deno.stderr.writeSync(encoder.encode(`engram ${lvl}: ${message}${extra}\n`));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warning"), error: emit("error") };
}

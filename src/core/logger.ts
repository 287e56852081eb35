/** @module The logging port; the CLI supplies a stderr implementation so stdout stays protocol-only. */

/** Minimal structured logger. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

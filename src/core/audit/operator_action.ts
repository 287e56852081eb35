/**
 * @module Operator actions: what a person changed with an `engram mcp` command (a server's launch,
 * trust, exposure, state), who (the OS user) and when, kept in the audit log as kind `operator`
 * (docs/operations.md#audit-log-and-health).
 */

/** One operator action: who ran which command on which server, and what it changed. */
export interface OperatorAction {
  /** The OS user who ran the command. */
  user: string;
  /** The command, e.g. `mcp set`. */
  command: string;
  /** The upstream server it acted on, if any. */
  server: string | null;
  /** What changed, one short line each (`network: false → true`); secrets never appear here. */
  changes: string[];
}

/** An operator action as the log holds it: stamped with the time it was recorded. */
export interface OperatorActionRecord extends OperatorAction {
  at: string;
}

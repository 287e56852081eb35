/**
 * @module Recording operator actions: every `engram mcp` command that changes what an upstream
 * server is or may do writes one row to the audit log (kind `operator`) with the OS user, the
 * time, the command, the server and what changed (docs/operations.md#audit-log-and-health).
 */
import { type EnvSnapshot, operatorName } from "../config/env.ts";
import type { AuditSink } from "../core/ports/audit_log.ts";

/** What a command tells the log: the environment it ran in (for the OS user) and what it did. */
export interface OperatorActionInput {
  /** The command's environment: the OS user is read from it. */
  env: EnvSnapshot;
  /** The command as typed after `engram`, without arguments: `mcp set`, `mcp enable`. */
  command: string;
  /** The upstream server acted on, if any. */
  server: string | null;
  /** What changed, one short line each; never a secret (an env value is not written out). */
  changes: string[];
}

/**
 * Records one operator action, stamped by the database's clock. It is written before the command
 * returns; a failure to write it fails the command, so no change goes unrecorded unnoticed.
 */
export async function recordOperatorAction(
  audit: Pick<AuditSink, "operatorAction">,
  action: OperatorActionInput,
): Promise<void> {
  await audit.operatorAction({
    user: operatorName(action.env),
    command: action.command,
    server: action.server,
    changes: action.changes,
  });
}

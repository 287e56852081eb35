/** @module One audit row per tool call, prompt get and resource read (docs/operations.md#audit-log-and-health). */
import { sha256Hex } from "../../core/hash.ts";
import type { Logger } from "../../core/logger.ts";
import type { MemoryService } from "../../core/memory_service.ts";
import type { AuditSink } from "../../core/ports/audit_log.ts";
import type { AuditEntry, CallerContext } from "../../core/types.ts";

/** Who made the call, what it read from, and where the row goes. */
export interface AuditContext {
  service: MemoryService;
  audit: AuditSink;
  caller: CallerContext;
  logger: Logger;
  /** The process's own log, never forwarded to the client: where internal error detail goes. */
  serverLogger: Logger;
}

/** What happened in one audited call. */
export interface AuditedCall {
  kind: AuditEntry["kind"];
  /** Tool name, prompt name or resource URI template — never a URI with user text in it. */
  name: string;
  args: unknown;
  /** The engram error code when the call failed, else null. */
  errorCode: string | null;
  brainId?: string;
  /** `performance.now()` when the call began. */
  started: number;
}

/** Writes the audit row of a call; a failed write is logged, never thrown. */
export async function auditCall(ctx: AuditContext, call: AuditedCall): Promise<void> {
  const latency = Math.round((performance.now() - call.started) * 1000) / 1000;
  const outcome = call.errorCode === null ? "ok" : "error";
  ctx.logger.debug(`${call.kind} ${call.name}: ${call.errorCode ?? outcome} in ${latency} ms`);
  try {
    await ctx.audit.audit({
      client_id: ctx.caller.clientId,
      transport: ctx.caller.transport,
      session_id: ctx.caller.sessionId ?? null,
      tier: ctx.caller.tier,
      kind: call.kind,
      name: call.name,
      brain_id: call.brainId ?? null,
      // A digest, not the content: the audit log must not become a second copy of the memory.
      args_digest: sha256Hex(JSON.stringify(call.args ?? {})).slice(0, 16),
      outcome,
      error_code: call.errorCode,
      latency_ms: latency,
    });
  } catch (err) {
    // A failed audit write must not fail the call the user made; it is logged instead.
    // The server log only: the error may name SQL or files a remote client must not read.
    ctx.serverLogger.warn("audit write failed", { [call.kind]: call.name, error: String(err) });
  }
}

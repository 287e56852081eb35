/** @module Validating, running, auditing and shaping the result of one tool call. */
import type { CallToolResult } from "../sdk.ts";
import { EngramError, toEngramError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { tierAllows } from "../../core/types.ts";
import { parseInput } from "../../core/validate.ts";
import type { ToolContext, ToolDef } from "./tool.ts";

/** A tool error as a tool result: `CODE: message` and `{ code, message, retryable }`. */
export function errorResult(err: EngramError): CallToolResult {
  // `busy` (a lock held by another process) is not a wire code: it is a retryable conflict.
  const code = err.code === "busy" ? "conflict" : err.code;
  return {
    isError: true,
    content: [{ type: "text", text: `${code}: ${err.message}` }],
    structuredContent: { code, message: err.message, retryable: err.retryable },
  };
}

/** Runs a tool under the caller's tier with validated arguments, and writes the audit row. */
export async function dispatchTool(
  tool: ToolDef,
  rawArgs: unknown,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const started = performance.now();
  let brainId: string | undefined;
  let result: CallToolResult;
  try {
    if (!tierAllows(ctx.caller.tier, tool.tier)) {
      throw new EngramError(
        "forbidden",
        `tool ${tool.name} needs tier ${tool.tier}; this session runs at tier ${ctx.caller.tier} (start with --tier ${tool.tier} or use a ${tool.tier} token)`,
      );
    }
    const out = await tool.run(ctx, parseInput(tool.input, rawArgs ?? {}, tool.name));
    brainId = tool.brainOf?.(out);
    result = {
      content: [{ type: "text", text: tool.summary(out) }],
      structuredContent: out as Record<string, unknown>,
    };
  } catch (err) {
    const e = toEngramError(err);
    if (e.code === "internal") {
      ctx.logger.error(`tool ${tool.name} failed`, { error: String(e.cause ?? e) });
    }
    result = errorResult(e);
  }
  await audit(tool.name, rawArgs, ctx, { result, brainId, started });
  return result;
}

async function audit(
  name: string,
  rawArgs: unknown,
  ctx: ToolContext,
  o: { result: CallToolResult; brainId?: string; started: number },
): Promise<void> {
  const structured = o.result.structuredContent as { code?: string } | undefined;
  try {
    await ctx.service.store.audit({
      client_id: ctx.caller.clientId,
      transport: ctx.caller.transport,
      session_id: ctx.caller.sessionId ?? null,
      tier: ctx.caller.tier,
      kind: "tool",
      name,
      brain_id: o.brainId ?? null,
      // A digest, not the content: the audit log must not become a second copy of the memory.
      args_digest: sha256Hex(JSON.stringify(rawArgs ?? {})).slice(0, 16),
      outcome: o.result.isError ? "error" : "ok",
      error_code: o.result.isError ? structured?.code ?? "internal" : null,
      latency_ms: Math.round((performance.now() - o.started) * 1000) / 1000,
    });
  } catch (err) {
    // A failed audit write must not fail the call the user made; it is logged instead.
    ctx.logger.warn("audit write failed", { tool: name, error: String(err) });
  }
}

/** @module Validating, running, auditing and shaping the result of one tool call. */
import type { CallToolResult } from "./session/mcp_protocol.ts";
import { EngramError } from "../../core/errors.ts";
import { concealInternal } from "../../core/internal_errors.ts";
import { type Tier, tierAllows } from "../../core/types.ts";
import { parseInput } from "../../core/validate.ts";
import { refuseUnknownKeys } from "./unknown_arguments.ts";
import { auditCall, type AuditContext } from "./audit.ts";
import { toolErrorCode, toolErrorResult } from "./tool_error.ts";
import type { ToolContext, ToolDef } from "./tool.ts";

/** One tool call as its audit row names it, and the tier it needs. */
export interface ToolCall {
  name: string;
  args: unknown;
  /** The tier the tool needs: a session below it is refused and `run` never called. */
  tier?: Tier;
  /** Said after a tier refusal: how to get the tier. */
  tierFix?: string;
}

/** What running a tool produced. */
export interface ToolRun {
  result: CallToolResult;
  /** The brain it touched, for the audit row. */
  brainId?: string;
  /** The audited error code, when it is not the one the result carries. */
  errorCode?: string | null;
}

/**
 * Runs one tool call under the caller's tier and writes its audit row. Never throws: a thrown
 * error becomes an error result, an internal one concealed (its detail goes to the server log).
 */
export async function auditedToolCall(
  ctx: AuditContext,
  call: ToolCall,
  run: () => Promise<ToolRun>,
): Promise<CallToolResult> {
  const started = performance.now();
  let out: ToolRun;
  try {
    if (call.tier !== undefined && !tierAllows(ctx.caller.tier, call.tier)) {
      throw new EngramError(
        "forbidden",
        `tool ${call.name} needs tier ${call.tier}; this session runs at tier ${ctx.caller.tier}${
          call.tierFix ?? ""
        }`,
      );
    }
    out = await run();
  } catch (err) {
    out = {
      result: toolErrorResult(
        concealInternal(err, { logger: ctx.serverLogger, what: `tool ${call.name}` }),
      ),
    };
  }
  await auditCall(ctx, {
    kind: "tool",
    name: call.name,
    args: call.args,
    errorCode: out.errorCode !== undefined ? out.errorCode : toolErrorCode(out.result) ?? null,
    brainId: out.brainId,
    started,
  });
  return out.result;
}

/** Runs a tool under the caller's tier with validated arguments, and writes the audit row. */
export function dispatchTool(
  tool: ToolDef,
  rawArgs: unknown,
  ctx: ToolContext,
): Promise<CallToolResult> {
  return auditedToolCall(ctx, {
    name: tool.name,
    args: rawArgs,
    tier: tool.tier,
    tierFix: ` (start with --tier ${tool.tier} or use ${article(tool.tier)} ${tool.tier} token)`,
  }, async () => {
    refuseUnknownKeys(tool.input, rawArgs ?? {}, tool.name);
    const out = await tool.run(ctx, parseInput(tool.input, rawArgs ?? {}, tool.name));
    const brainId = tool.brainOf?.(out);
    return {
      result: {
        content: [{ type: "text", text: tool.summary(out) }],
        structuredContent: out as Record<string, unknown>,
      },
      brainId,
    };
  });
}

/** "a" or "an" before a tier's name. */
function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

/** @module Validating, running, auditing and shaping the result of one tool call. */
import type { CallToolResult } from "../sdk.ts";
import { EngramError } from "../../core/errors.ts";
import { concealInternal } from "../../core/internal_errors.ts";
import { tierAllows } from "../../core/types.ts";
import { parseInput } from "../../core/validate.ts";
import { auditCall } from "./audit.ts";
import { toolErrorCode, toolErrorResult } from "./tool_error.ts";
import type { ToolContext, ToolDef } from "./tool.ts";

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
    result = toolErrorResult(
      concealInternal(err, { logger: ctx.serverLogger, what: `tool ${tool.name}` }),
    );
  }
  await auditCall(ctx, {
    kind: "tool",
    name: tool.name,
    args: rawArgs,
    errorCode: toolErrorCode(result) ?? null,
    brainId,
    started,
  });
  return result;
}

/**
 * @module A failed tool call as a tool result (docs/tools.md#errors): text `CODE: message`, no
 * `structuredContent`, and the code for programs under `_meta["engram/error"]`.
 */
import type { CallToolResult } from "./session/mcp_protocol.ts";
import type { EngramError } from "../../core/errors.ts";

/** The `_meta` key that carries a failed call's code. */
export const TOOL_ERROR_META = "engram/error";

/** What `_meta["engram/error"]` holds. */
export interface ToolErrorMeta {
  code: string;
  retryable: boolean;
}

/**
 * A tool error as a tool result. SDK clients check any `structuredContent` against the tool's
 * `outputSchema`, error results included, and would throw instead of returning the error; so the
 * code travels in `_meta` and the message in the text.
 */
export function toolErrorResult(err: EngramError): CallToolResult {
  // `busy` (a lock held by another process) is not a wire code: it is a retryable conflict.
  const code = err.code === "busy" ? "conflict" : err.code;
  const meta: ToolErrorMeta = { code, retryable: err.retryable };
  return {
    isError: true,
    content: [{ type: "text", text: `${code}: ${err.message}` }],
    _meta: { [TOOL_ERROR_META]: meta },
  };
}

/** The code of a result made by `toolErrorResult`; undefined on success. */
export function toolErrorCode(result: CallToolResult): string | undefined {
  return (result._meta?.[TOOL_ERROR_META] as ToolErrorMeta | undefined)?.code;
}

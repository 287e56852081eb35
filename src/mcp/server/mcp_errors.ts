/** @module Engram errors as JSON-RPC errors, for the parts of MCP that are not tool calls. */
import { ErrorCode, type JSONRPCMessage, McpError } from "./session/mcp_protocol.ts";
import { EngramError } from "../../core/errors.ts";
import { concealInternal } from "../../core/internal_errors.ts";
import type { Logger } from "../../core/logger.ts";

/** JSON-RPC code for a resource that does not exist (MCP 2025-11-25, resources). */
export const RESOURCE_NOT_FOUND = -32002;

/** -32602 with a message saying what to send instead. */
export function invalidParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

/** -32002 with the URI in `data`. */
export function resourceNotFound(uri: string, message = `resource ${uri} not found`): McpError {
  return new McpError(RESOURCE_NOT_FOUND, message, { uri });
}

/**
 * Anything thrown by a prompt, resource read or completion as a JSON-RPC error. A missing brain or
 * document is -32002 when a resource URI named it, else a bad argument (-32602); so are invalid
 * arguments. Anything else is -32603, with the engram code in `data`; an internal error's detail
 * goes to `serverLogger` under a reference, and the client gets only the reference.
 */
export function toMcpError(
  err: unknown,
  options: { serverLogger: Logger; what: string; uri?: string },
): McpError {
  if (err instanceof McpError) return err;
  const e = concealInternal(err, { logger: options.serverLogger, what: options.what });
  const missing = e.code === "not_found" || e.code === "no_brain";
  if (missing && options.uri !== undefined) return resourceNotFound(options.uri, e.message);
  if (missing || e.code === "invalid_argument" || e.code === "forbidden") {
    return new McpError(ErrorCode.InvalidParams, e.message, { code: e.code });
  }
  const message = e.code === "internal" ? `internal: ${e.message}` : e.message;
  return new McpError(ErrorCode.InternalError, message, {
    code: e.code === "busy" ? "conflict" : e.code,
    retryable: e.retryable,
  });
}

/** The code an audit row records for a failed call: the engram code when there is one. */
export function auditCodeOf(err: unknown): string {
  if (err instanceof EngramError) return err.code;
  if (err instanceof McpError) {
    const data = err.data as { code?: unknown } | undefined;
    if (typeof data?.code === "string") return data.code;
    if (err.code === RESOURCE_NOT_FOUND) return "not_found";
    if (err.code === ErrorCode.InvalidParams) return "invalid_argument";
  }
  return "internal";
}

/** The SDK's McpError writes its code into its message; on the wire the code already has a field. */
const SDK_PREFIX = /^(?:MCP error -?\d+: )+/;

/**
 * `message` as it should go on the wire: an error reply's text without the SDK's
 * `MCP error -32602: ` prefix, which a client's McpError would otherwise show twice.
 */
export function wireMessage(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { message?: unknown } }).error;
  if (typeof error?.message !== "string" || !SDK_PREFIX.test(error.message)) return message;
  return {
    ...message,
    error: { ...error, message: error.message.replace(SDK_PREFIX, "") },
  } as JSONRPCMessage;
}

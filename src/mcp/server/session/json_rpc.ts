/**
 * @module JSON-RPC framing of MCP for the server side: the message schemas, the error codes and
 * `McpError`, and the protocol revisions — as the MCP SDK's `types.js` (1.32.2) defines them,
 * without loading that module and its ~750 schema nodes before a session's first call
 * (docs/architecture.md#what-engram-writes-where-a-library-exists).
 */
import { z } from "zod";
import { PROTOCOL_VERSION } from "../../../version.ts";

/** The newest MCP revision; a client asking for one engram does not know gets this. */
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSION;

/** The MCP revisions a session can negotiate (the SDK's list). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** The `_meta` key of a request that belongs to a task. */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** JSON-RPC and MCP error codes (the SDK's `ErrorCode`). */
export const ErrorCode = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UrlElicitationRequired: -32042,
} as const;

/** An error with a JSON-RPC code, answered as that code (the SDK's `McpError`). */
export class McpError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(`MCP error ${code}: ${message}`);
    this.code = code;
    this.data = data;
    this.name = "McpError";
  }

  /** The error a JSON-RPC error reply stands for. */
  static fromError(code: number, message: string, data?: unknown): McpError {
    return new McpError(code, message, data);
  }
}

/** A request id: a string or an integer. */
export const RequestIdSchema = z.union([z.string(), z.number().int()]);

/** A request's `_meta`: its progress token and task, and anything else. */
export const RequestMetaSchema = z.looseObject({
  progressToken: z.union([z.string(), z.number().int()]).optional(),
  [RELATED_TASK_META_KEY]: z.object({ taskId: z.string() }).optional(),
});

/** The params every request and notification may carry. */
export const BaseParamsSchema = z.object({ _meta: RequestMetaSchema.optional() });

/** Any request: a method and optional params. */
export const RequestSchema = z.object({
  method: z.string(),
  params: BaseParamsSchema.loose().optional(),
});

/** Any notification. */
export const NotificationSchema = z.object({
  method: z.string(),
  params: BaseParamsSchema.loose().optional(),
});

const ResultSchema = z.looseObject({ _meta: RequestMetaSchema.optional() });

const JSONRPCRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema,
  ...RequestSchema.shape,
}).strict();

const JSONRPCNotificationSchema = z.object({
  jsonrpc: z.literal("2.0"),
  ...NotificationSchema.shape,
}).strict();

const JSONRPCResultResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema,
  result: ResultSchema,
}).strict();

const JSONRPCErrorResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: RequestIdSchema.optional(),
  error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
}).strict();

/** Any JSON-RPC 2.0 message MCP sends: request, notification, result or error. */
export const JSONRPCMessageSchema = z.union([
  JSONRPCRequestSchema,
  JSONRPCNotificationSchema,
  JSONRPCResultResponseSchema,
  JSONRPCErrorResponseSchema,
]);

/** Whether `value` is a request. */
export const isJSONRPCRequest = (
  value: unknown,
): value is z.output<typeof JSONRPCRequestSchema> => JSONRPCRequestSchema.safeParse(value).success;

/** Whether `value` is a notification. */
export const isJSONRPCNotification = (
  value: unknown,
): value is z.output<typeof JSONRPCNotificationSchema> =>
  JSONRPCNotificationSchema.safeParse(value).success;

/** Whether `value` is a result reply. */
export const isJSONRPCResultResponse = (
  value: unknown,
): value is z.output<typeof JSONRPCResultResponseSchema> =>
  JSONRPCResultResponseSchema.safeParse(value).success;

/** Whether `value` is an error reply. */
export const isJSONRPCErrorResponse = (
  value: unknown,
): value is z.output<typeof JSONRPCErrorResponseSchema> =>
  JSONRPCErrorResponseSchema.safeParse(value).success;

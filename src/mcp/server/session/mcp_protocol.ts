/**
 * @module The MCP protocol for the server side: the SDK's types, and engram's own copies of the
 * schemas and errors a session needs before its first call
 * (docs/architecture.md#what-engram-writes-where-a-library-exists).
 *
 * The SDK's `types.js` defines every message of the protocol, about 750 zod schema nodes (1.6 MiB
 * of an idle `engram stdio`, with its source); its values are imported only when a session passes
 * an upstream's sampling or elicitation request on. Not through `src/mcp/sdk.ts`: that module
 * also re-exports the SDK's `Server`, whose import loads ajv, ajv-formats, zod's v3 and mini APIs
 * and zod-to-json-schema.
 */

// @ts-types="@modelcontextprotocol/sdk/types"
export type * from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
export {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./json_rpc.ts";
export {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "./request_schemas.ts";

/** The SDK's schemas of sampling and elicitation answers, loaded when the first is asked for. */
export const replySchemas = (): Promise<typeof import("./full_protocol.ts")> =>
  import("./full_protocol.ts");

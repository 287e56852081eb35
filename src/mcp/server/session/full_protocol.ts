/**
 * @module The SDK's schemas of the client's sampling and elicitation answers, which a session
 * checks only while it passes an upstream's request on. Imported on first use (mcp_protocol.ts
 * says why).
 */

// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * @module What a session may handle and send given the capabilities both sides declared: the
 * checks of the MCP SDK's `Server`
 * (docs/architecture.md#what-engram-writes-where-a-library-exists). A programming error (a
 * handler or notification the server never declared) fails loudly.
 */
import type { ClientCapabilities, ServerCapabilities } from "./mcp_protocol.ts";

/** The server capability each request method needs a handler for. */
const HANDLER_NEEDS: Readonly<Record<string, keyof ServerCapabilities>> = {
  "completion/complete": "completions",
  "logging/setLevel": "logging",
  "prompts/get": "prompts",
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "resources/read": "resources",
  "tools/call": "tools",
  "tools/list": "tools",
};

/** The server capability each notification the server sends needs. */
const NOTIFICATION_NEEDS: Readonly<Record<string, keyof ServerCapabilities>> = {
  "notifications/message": "logging",
  "notifications/resources/updated": "resources",
  "notifications/resources/list_changed": "resources",
  "notifications/tools/list_changed": "tools",
  "notifications/prompts/list_changed": "prompts",
};

/** Throws when a handler for `method` needs a capability the server does not declare. */
export function assertHandlerCapability(method: string, server: ServerCapabilities): void {
  const needs = HANDLER_NEEDS[method];
  if (needs && !server[needs]) {
    throw new Error(`Server does not support ${needs} (required for ${method})`);
  }
}

/** Throws when sending `method` needs a capability one side did not declare. */
export function assertNotificationCapability(
  method: string,
  declared: { server: ServerCapabilities; client?: ClientCapabilities },
): void {
  const needs = NOTIFICATION_NEEDS[method];
  if (needs && !declared.server[needs]) {
    throw new Error(`Server does not support ${needs} (required for ${method})`);
  }
  if (method === "notifications/elicitation/complete" && !declared.client?.elicitation?.url) {
    throw new Error(`Client does not support URL elicitation (required for ${method})`);
  }
}

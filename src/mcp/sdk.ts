/**
 * @module The MCP SDK, imported in one place.
 *
 * The SDK's `./*` export maps `types.js` to a `types.js.d.ts` that does not exist, so under Deno
 * every deep import would type-check as `any`. `@ts-types` points the checker at the real
 * declarations while the runtime loads the `.js` files.
 *
 * The server side and the types only: the SDK's client classes (sdk_client.ts) pull in their
 * transports' dependencies, megabytes of memory a server that connects to no upstream never needs.
 */

// @ts-types="@modelcontextprotocol/sdk/types"
export * from "@modelcontextprotocol/sdk/types.js";
// No engram module uses the SDK's Server any more (session/session_server.ts took its place); it
// stays for the architecture test's canary on how the bare SDK answers bad params.
// @ts-types="@modelcontextprotocol/sdk/server/index"
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/validation/ajv"
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
// @ts-types="@modelcontextprotocol/sdk/shared/uriTemplate"
export { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";

/**
 * @module engram's copies of the protocol schemas a session needs before its first call answer
 * every message as the pinned SDK's own do: same verdict, same parsed value, same issues. A new
 * SDK that changes one fails here, naming it.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import * as sdk from "../../../../src/mcp/sdk.ts";
import * as json from "../../../../src/mcp/server/session/json_rpc.ts";
import * as mine from "../../../../src/mcp/server/session/request_schemas.ts";
import { CallToolResultSchema } from "../../../../src/mcp/server/session/call_tool_result.ts";

/** Each copied schema beside the SDK's, with messages that pass and fail it. */
const CASES: [string, z.ZodType, z.ZodType, unknown[]][] = [
  ["JSONRPCMessage", json.JSONRPCMessageSchema, sdk.JSONRPCMessageSchema, [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: "a", method: "x", params: { _meta: { progressToken: 3 }, extra: 1 } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, result: { anything: true } },
    { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } },
    { jsonrpc: "2.0", id: 1.5, method: "ping" },
    { jsonrpc: "2.0", id: 1, method: "ping", extra: true },
    { jsonrpc: "1.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 1, method: 42 },
    { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } },
    [1, 2],
    null,
  ]],
  ["InitializeRequest", mine.InitializeRequestSchema, sdk.InitializeRequestSchema, [
    {
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {}, sampling: { tools: {} }, roots: { listChanged: true } },
        clientInfo: { name: "c", version: "1", icons: [{ src: "x.png", theme: "dark" }] },
      },
    },
    {
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: { elicitation: { url: {} }, experimental: { a: {} }, unknown: 1 },
        clientInfo: { name: "c", version: "1", extra: "kept?" },
      },
    },
    { method: "initialize", params: { protocolVersion: "x", capabilities: {} } },
    {
      method: "initialize",
      params: { protocolVersion: 1, capabilities: { sampling: 5 }, clientInfo: { name: 2 } },
    },
  ]],
  ["PingRequest", mine.PingRequestSchema, sdk.PingRequestSchema, [
    { method: "ping" },
    { method: "ping", params: { _meta: { progressToken: "t" } } },
    { method: "pong" },
  ]],
  ["CancelledNotification", mine.CancelledNotificationSchema, sdk.CancelledNotificationSchema, [
    { method: "notifications/cancelled", params: { requestId: 3, reason: "stop" } },
    { method: "notifications/cancelled", params: {} },
    { method: "notifications/cancelled", params: { requestId: 1.5 } },
    { method: "notifications/cancelled" },
  ]],
  ["ListToolsRequest", mine.ListToolsRequestSchema, sdk.ListToolsRequestSchema, [
    { method: "tools/list" },
    { method: "tools/list", params: { cursor: "b2Ux" } },
    { method: "tools/list", params: { cursor: 1 } },
  ]],
  [
    "ListResourceTemplatesRequest",
    mine.ListResourceTemplatesRequestSchema,
    sdk.ListResourceTemplatesRequestSchema,
    [
      { method: "resources/templates/list", params: {} },
      { method: "resources/list" },
    ],
  ],
  ["CallToolRequest", mine.CallToolRequestSchema, sdk.CallToolRequestSchema, [
    { method: "tools/call", params: { name: "memory_search", arguments: { query: "x" } } },
    { method: "tools/call", params: { name: "t", task: { ttl: 5 }, other: 1 } },
    { method: "tools/call", params: { name: 5 } },
    { method: "tools/call", params: { name: "t", arguments: [1] } },
    { method: "tools/call" },
  ]],
  ["GetPromptRequest", mine.GetPromptRequestSchema, sdk.GetPromptRequestSchema, [
    { method: "prompts/get", params: { name: "p", arguments: { a: "1" } } },
    { method: "prompts/get", params: { name: "p", arguments: { a: 1 } } },
  ]],
  ["ReadResourceRequest", mine.ReadResourceRequestSchema, sdk.ReadResourceRequestSchema, [
    { method: "resources/read", params: { uri: "engram://brains" } },
    { method: "resources/read", params: {} },
  ]],
  ["SubscribeRequest", mine.SubscribeRequestSchema, sdk.SubscribeRequestSchema, [
    { method: "resources/subscribe", params: { uri: "engram://x" } },
  ]],
  ["CompleteRequest", mine.CompleteRequestSchema, sdk.CompleteRequestSchema, [
    {
      method: "completion/complete",
      params: {
        ref: { type: "ref/prompt", name: "p" },
        argument: { name: "a", value: "v" },
        context: { arguments: { b: "c" } },
      },
    },
    {
      method: "completion/complete",
      params: { ref: { type: "ref/other" }, argument: { name: "a" } },
    },
  ]],
  ["SetLevelRequest", mine.SetLevelRequestSchema, sdk.SetLevelRequestSchema, [
    { method: "logging/setLevel", params: { level: "notice" } },
    { method: "logging/setLevel", params: { level: "loud" } },
  ]],
  ["CallToolResult", CallToolResultSchema, sdk.CallToolResultSchema, [
    { content: [{ type: "text", text: "hi", annotations: { audience: ["user"], priority: 0.5 } }] },
    { structuredContent: { a: 1 }, isError: true, extra: "kept" },
    {
      content: [
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "audio", data: "aGk=", mimeType: "audio/wav", _meta: { a: 1 } },
        {
          type: "resource_link",
          uri: "engram://x",
          name: "x",
          icons: [{ src: "i.png", sizes: ["16x16"] }],
          size: 3,
          _meta: { b: 2 },
        },
        { type: "resource", resource: { uri: "engram://y", text: "t", mimeType: "text/plain" } },
        { type: "resource", resource: { uri: "engram://z", blob: "aGk=" } },
      ],
    },
    { content: [{ type: "image", data: "not base64!", mimeType: "image/png" }] },
    {
      content: [{
        type: "text",
        text: "x",
        annotations: { priority: 2, lastModified: "yesterday" },
      }],
    },
    { content: [{ type: "video", url: "x" }] },
    { content: "not a list" },
    { content: [{ type: "text", text: "x", extra: true }], structuredContent: [1] },
  ]],
  [
    "RootsListChangedNotification",
    mine.RootsListChangedNotificationSchema,
    sdk.RootsListChangedNotificationSchema,
    [
      { method: "notifications/roots/list_changed" },
    ],
  ],
];

Deno.test("protocol schemas: engram's copies answer every message as the SDK's do", () => {
  for (const [name, ours, theirs, messages] of CASES) {
    for (const message of messages) {
      const a = ours.safeParse(message);
      const b = theirs.safeParse(message);
      const what = `${name} on ${JSON.stringify(message)}`;
      assert.equal(a.success, b.success, what);
      if (a.success) assert.deepEqual(a.data, b.data, what);
      else assert.deepEqual(a.error!.issues, b.error!.issues, what);
    }
  }
});

Deno.test("protocol constants: revisions, error codes and McpError as the SDK has them", () => {
  assert.equal(json.LATEST_PROTOCOL_VERSION, sdk.LATEST_PROTOCOL_VERSION);
  assert.deepEqual(json.SUPPORTED_PROTOCOL_VERSIONS, sdk.SUPPORTED_PROTOCOL_VERSIONS);
  for (const [key, code] of Object.entries(json.ErrorCode)) {
    assert.equal(code, sdk.ErrorCode[key as keyof typeof sdk.ErrorCode], key);
  }
  assert.deepEqual(mine.LoggingLevelSchema.options, sdk.LoggingLevelSchema.options);
  const ours = new json.McpError(-32602, "bad", { x: 1 });
  const theirs = new sdk.McpError(-32602, "bad", { x: 1 });
  assert.deepEqual(
    [ours.name, ours.message, ours.code, ours.data],
    [theirs.name, theirs.message, theirs.code, theirs.data],
  );
});

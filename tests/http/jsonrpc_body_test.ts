import assert from "node:assert/strict";
import { isJsonRpcMessage } from "../../src/http/jsonrpc_body.ts";
import { JSONRPCMessageSchema } from "../../src/mcp/sdk.ts";

const CASES: [unknown, boolean][] = [
  [{ jsonrpc: "2.0", id: 1, method: "ping" }, true],
  [{ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x" } }, true],
  [{ jsonrpc: "2.0", method: "notifications/initialized" }, true],
  [{ jsonrpc: "2.0", id: 1, result: {} }, true],
  [{ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } }, true],
  [{ jsonrpc: "1.0", id: 1, method: "ping" }, false],
  [{ id: 1, method: "ping" }, false],
  [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, false],
  [{ jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, false],
  [{ jsonrpc: "2.0", id: 1, method: "ping", params: [1] }, false],
  [{ jsonrpc: "2.0", id: 1, method: "ping", params: "x" }, false],
  [{ jsonrpc: "2.0", id: 1 }, false],
  [{ jsonrpc: "2.0", result: {} }, false],
  [{ jsonrpc: "2.0", id: 1, error: { message: "no code" } }, false],
  [{ jsonrpc: "2.0", method: 5 }, false],
  [null, false],
  ["ping", false],
];

Deno.test("isJsonRpcMessage: the envelope check agrees with the SDK's schema", () => {
  for (const [value, ok] of CASES) {
    assert.equal(isJsonRpcMessage(value), ok, JSON.stringify(value));
    assert.equal(
      JSONRPCMessageSchema.safeParse(value).success,
      ok,
      `SDK: ${JSON.stringify(value)}`,
    );
  }
});

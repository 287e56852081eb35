import assert from "node:assert/strict";
import { z } from "zod";
import { ElicitRequestSchema, ListRootsRequestSchema } from "../../../../src/mcp/sdk.ts";
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  type ServerCapabilities,
  type Transport,
  type TransportSendOptions,
} from "../../../../src/mcp/server/session/mcp_protocol.ts";
import { SessionServer } from "../../../../src/mcp/server/session/session_server.ts";
import { Client, InMemoryTransport } from "../../../../src/mcp/sdk_client.ts";
import { withTimeout } from "../../../helpers.ts";

const CAPS: ServerCapabilities = { tools: {}, logging: {} };

/** What the server sent, with the options it gave the transport. */
type Sent = { message: JSONRPCMessage; options?: TransportSendOptions };

/** The in-memory transport, keeping what the server sends and how. */
function recording(inner: Transport): { transport: Transport; sent: Sent[] } {
  const sent: Sent[] = [];
  const transport: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message, options) => {
      sent.push({ message, options });
      return inner.send(message, options);
    },
  };
  inner.onmessage = (m, extra) => transport.onmessage?.(m, extra);
  inner.onclose = () => transport.onclose?.();
  inner.onerror = (e) => transport.onerror?.(e);
  return { transport, sent };
}

/** A raw JSON-RPC peer on the other end: send a message, wait for the reply to an id. */
async function rawSession(server: SessionServer) {
  const [peer, serverSide] = InMemoryTransport.createLinkedPair();
  const { transport, sent } = recording(serverSide);
  const inbox: JSONRPCMessage[] = [];
  const waiting = new Map<unknown, (m: JSONRPCMessage) => void>();
  peer.onmessage = (m) => {
    inbox.push(m);
    if ("id" in m && !("method" in m)) waiting.get(m.id)?.(m);
  };
  await server.connect(transport);
  await peer.start();
  const reply = (id: number) =>
    withTimeout(new Promise<JSONRPCMessage>((r) => waiting.set(id, r)), `reply ${id}`);
  return {
    peer,
    sent,
    inbox,
    /** Sends a request and resolves with its reply. */
    request: async (id: number, method: string, params?: Record<string, unknown>) => {
      const answered = reply(id);
      await peer.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
      return answered as Promise<{ result?: Record<string, unknown>; error?: ErrorBody }>;
    },
    notify: (method: string, params?: Record<string, unknown>) =>
      peer.send({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }),
  };
}

type ErrorBody = { code: number; message: string; data?: unknown };

const INIT = (version: string) => ({
  protocolVersion: version,
  capabilities: { roots: {} },
  clientInfo: { name: "raw", version: "9" },
});

Deno.test("session server: initialize negotiates the revision as the SDK does and keeps the client", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, {
    capabilities: CAPS,
    instructions: "use it",
  });
  const s = await rawSession(server);
  const older = await s.request(1, "initialize", INIT("2025-06-18"));
  assert.deepEqual(older.result, {
    protocolVersion: "2025-06-18",
    capabilities: CAPS,
    serverInfo: { name: "engram", version: "1" },
    instructions: "use it",
  });
  assert.deepEqual(server.getClientVersion(), { name: "raw", version: "9" });
  assert.deepEqual(server.getClientCapabilities(), { roots: {} });
  const unknown = await s.request(2, "initialize", INIT("1999-01-01"));
  assert.equal(unknown.result?.protocolVersion, "2025-11-25");
  assert.deepEqual((await s.request(3, "ping")).result, {});
  await server.close();
});

Deno.test("session server: unknown methods are -32601; thrown errors keep a numeric code, else -32603", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const cursor = request.params?.cursor;
    if (cursor === "mcp") throw new McpError(-32002, "gone", { uri: "x" });
    if (cursor === "plain") throw new Error("it broke");
    throw "not an error";
  });
  const s = await rawSession(server);
  assert.deepEqual((await s.request(1, "no/such")).error, {
    code: -32601,
    message: "Method not found",
  });
  assert.deepEqual((await s.request(2, "tools/list", { cursor: "mcp" })).error, {
    code: -32002,
    message: "MCP error -32002: gone",
    data: { uri: "x" },
  });
  assert.deepEqual((await s.request(3, "tools/list", { cursor: "plain" })).error, {
    code: -32603,
    message: "it broke",
  });
  assert.deepEqual((await s.request(4, "tools/list", { cursor: "x" })).error, {
    code: -32603,
    message: "Internal error",
  });
  await server.close();
});

Deno.test("session server: params failing the schema are -32603; a bad tools/call request or result is -32602", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(
    z.looseObject({ method: z.literal("tools/call") }),
    (request) =>
      (request.params as { name: string }).name === "bad"
        ? { content: "not a list" }
        : { content: [{ type: "text", text: "ok" }] },
  );
  const s = await rawSession(server);
  const list = await s.request(1, "tools/list", { cursor: 5 });
  assert.equal(list.error?.code, -32603);
  assert.match(list.error!.message, /cursor/);
  const call = await s.request(2, "tools/call", { name: 5 });
  assert.equal(call.error?.code, -32602);
  assert.match(call.error!.message, /^MCP error -32602: Invalid tools\/call request: .*"name"/s);
  const result = await s.request(3, "tools/call", { name: "bad" });
  assert.equal(result.error?.code, -32602);
  assert.match(result.error!.message, /Invalid tools\/call result: .*"content"/s);
  assert.deepEqual((await s.request(4, "tools/call", { name: "good" })).result, {
    content: [{ type: "text", text: "ok" }],
  });
  await server.close();
});

Deno.test("session server: a cancelled request's handler is aborted and never answered", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  let reason: unknown;
  const aborted = Promise.withResolvers<void>();
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    assert.equal(server.requestsInFlight, 1);
    await new Promise<void>((resolve) =>
      extra.signal.addEventListener("abort", () => {
        reason = extra.signal.reason;
        resolve();
      })
    );
    aborted.resolve();
    return { tools: [] };
  });
  const s = await rawSession(server);
  await s.peer.send({ jsonrpc: "2.0", id: 5, method: "tools/list" });
  await s.notify("notifications/cancelled", { requestId: 5, reason: "user stopped it" });
  await withTimeout(aborted.promise, "the handler's abort");
  assert.equal(reason, "user stopped it");
  // The session carries on, and the cancelled request got no reply before this one's.
  assert.deepEqual((await s.request(6, "ping")).result, {});
  assert.ok(!s.inbox.some((m) => "id" in m && m.id === 5), JSON.stringify(s.inbox));
  assert.equal(server.requestsInFlight, 0);
  await server.close();
});

Deno.test("session server: requests to the client are answered, time out with a cancellation, and fail on close", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const { transport, sent } = recording(serverSide);
  const client = new Client({ name: "c", version: "1" }, { capabilities: { roots: {} } });
  let hang = false;
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    if (hang) await new Promise(() => {});
    return { roots: [{ uri: "file:///tmp/a" }] };
  });
  await server.connect(transport);
  await client.connect(clientSide);
  const roots = z.object({ roots: z.array(z.object({ uri: z.string() })) });
  assert.deepEqual(await server.request({ method: "roots/list" }, roots), {
    roots: [{ uri: "file:///tmp/a" }],
  });

  hang = true;
  await assert.rejects(
    server.request({ method: "roots/list" }, roots, { timeout: 20 }),
    (e: McpError) => e.code === -32001 && /Request timed out/.test(e.message),
  );
  const cancels = sent.filter((s) =>
    "method" in s.message && s.message.method === "notifications/cancelled"
  );
  assert.equal(cancels.length, 1);

  const stop = new AbortController();
  const stopped = server.request({ method: "roots/list" }, roots, { signal: stop.signal });
  stop.abort("no longer needed");
  await assert.rejects(stopped, (e: McpError) => /no longer needed/.test(e.message));

  const pending = server.request({ method: "roots/list" }, roots);
  let closed = 0;
  server.onclose = () => closed++;
  await client.close();
  await assert.rejects(pending, (e: McpError) => e.code === -32000);
  assert.equal(closed, 1);
  await assert.rejects(server.request({ method: "roots/list" }, roots), /Not connected/);
});

Deno.test("session server: notifications of a request carry its id; undeclared ones are refused", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    await extra.sendNotification({
      method: "notifications/message",
      params: { level: "info", data: "listing" },
    });
    return { tools: [] };
  });
  const s = await rawSession(server);
  await s.request(7, "tools/list");
  const note = s.sent.find((x) => "method" in x.message);
  assert.equal((note!.message as { method: string }).method, "notifications/message");
  assert.deepEqual(note!.options, { relatedRequestId: 7 });
  await assert.rejects(
    server.sendPromptListChanged(),
    /Server does not support prompts \(required for notifications\/prompts\/list_changed\)/,
  );
  await server.close();
});

Deno.test("session server: a handler needing an undeclared capability cannot be registered", () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: {} });
  assert.throws(
    () => server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] })),
    /Server does not support tools \(required for tools\/call\)/,
  );
});

Deno.test("session server: elicitation needs the client's mode; a form answer must match its schema", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "c", version: "1" }, {
    capabilities: { elicitation: { form: {} } },
  });
  let answer: Record<string, unknown> = { age: 41 };
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: answer }));
  await server.connect(serverSide);
  await client.connect(clientSide);
  const form = {
    message: "How old?",
    requestedSchema: {
      type: "object" as const,
      properties: { age: { type: "number" as const } },
      required: ["age"],
    },
  };
  assert.deepEqual(await server.elicitInput(form), { action: "accept", content: { age: 41 } });
  answer = { age: "old" };
  await assert.rejects(
    server.elicitInput(form),
    (e: McpError) => e.code === -32602 && /does not match requested schema/.test(e.message),
  );
  await assert.rejects(
    server.elicitInput({
      mode: "url",
      message: "Sign in",
      url: "https://example.com",
      elicitationId: "e1",
    }),
    /Client does not support url elicitation/,
  );
  await client.close();
});

Deno.test("session server: sampling with tools needs sampling.tools; tool results must answer the last tool use", async () => {
  const server = new SessionServer({ name: "engram", version: "1" }, { capabilities: CAPS });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "c", version: "1" }, { capabilities: { sampling: {} } });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const user = { role: "user" as const, content: { type: "text" as const, text: "hi" } };
  await assert.rejects(
    server.createMessage({
      messages: [user],
      maxTokens: 10,
      tools: [{ name: "t", inputSchema: { type: "object" } }],
    }),
    /Client does not support sampling tools capability/,
  );
  await assert.rejects(
    server.createMessage({
      messages: [user, {
        role: "user",
        content: [{ type: "tool_result", toolUseId: "u1", content: [] }],
      }],
      maxTokens: 10,
    }),
    /tool_result blocks are not matching any tool_use from the previous message/,
  );
  await client.close();
});

/**
 * @module engram's side of one MCP session over any transport: requests in and their replies,
 * notifications both ways, `initialize`, the capability checks, and the requests engram sends the
 * client (docs/architecture.md#what-engram-writes-where-a-library-exists).
 *
 * A port of the MCP SDK's `Server` and `Protocol` (1.32.2) without what engram never uses —
 * tasks, debounced notifications, progress on its own requests — so that a session loads none of
 * ajv, zod's v3 and mini APIs or zod-to-json-schema. Replies, errors and checks are the SDK's: a
 * request whose params fail its schema is -32603, an unknown method -32601, a bad `tools/call`
 * request or result -32602.
 */
import type { z } from "zod";
import {
  CancelledNotificationSchema,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageRequestParamsBase,
  type CreateMessageRequestParamsWithTools,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  ErrorCode,
  type Implementation,
  InitializedNotificationSchema,
  type InitializeRequest,
  InitializeRequestSchema,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  McpError,
  type MessageExtraInfo,
  PingRequestSchema,
  type Result,
  type ServerCapabilities,
  type ServerNotification,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from "./mcp_protocol.ts";
import {
  type OutgoingRequest,
  OutgoingRequests,
  type RequestOptions,
} from "./outgoing_requests.ts";
import {
  checkedToolCall,
  IncomingRequests,
  type RequestHandler,
  type RequestHandlerExtra,
} from "./incoming_requests.ts";
import { createMessage, elicitInput } from "./client_asks.ts";
import { assertHandlerCapability, assertNotificationCapability } from "./capabilities.ts";

export type { RequestHandlerExtra } from "./incoming_requests.ts";

/** A request or notification schema: an object whose `method` is one literal. */
export type MethodSchema = z.ZodObject<{ method: z.ZodLiteral<string> }, z.core.$ZodObjectConfig>;

type NotificationHandler = (notification: JSONRPCNotification) => Promise<void>;

/** The server's identity and what it offers. */
export interface SessionServerOptions {
  capabilities: ServerCapabilities;
  /** Sent in the initialize result: how to use this server. */
  instructions?: string;
}

/** One MCP session's server: register handlers, then `connect` a transport. */
export class SessionServer {
  /** Called once the session's connection has closed. */
  onclose?: () => void;
  /** Errors that have no request to answer: a reply to nothing, a failing notification handler. */
  onerror?: (error: Error) => void;
  /** Called on `notifications/initialized`. */
  oninitialized?: () => void;

  readonly #info: Implementation;
  readonly #capabilities: ServerCapabilities;
  readonly #instructions?: string;
  #transport?: Transport;
  #client?: { capabilities: ClientCapabilities; info: Implementation };
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #incoming = new IncomingRequests((err) => this.#error(err));
  readonly #outgoing = new OutgoingRequests((err) => this.#error(err));

  constructor(info: Implementation, options: SessionServerOptions) {
    this.#info = info;
    this.#capabilities = options.capabilities;
    this.#instructions = options.instructions;
    this.setRequestHandler(InitializeRequestSchema, (request) => this.#initialize(request));
    this.setRequestHandler(PingRequestSchema, () => ({}));
    this.setNotificationHandler(InitializedNotificationSchema, () => this.oninitialized?.());
    this.setNotificationHandler(CancelledNotificationSchema, (notification) => {
      const id = notification.params.requestId;
      if (id !== undefined) this.#incoming.cancel(id, notification.params.reason);
    });
  }

  /** How many of the client's requests are being handled now. */
  get requestsInFlight(): number {
    return this.#incoming.size;
  }

  /** The client's capabilities, once it sent `initialize`. */
  getClientCapabilities(): ClientCapabilities | undefined {
    return this.#client?.capabilities;
  }

  /** The client's name and version, once it sent `initialize`. */
  getClientVersion(): Implementation | undefined {
    return this.#client?.info;
  }

  /**
   * Handles requests of the method `schema` names; a request that fails `schema` is answered
   * -32603 (the SDK's behaviour: see strict_handler.ts for -32602). A `tools/call` request must
   * also be a valid CallToolRequest and its handler's result a valid CallToolResult (-32602).
   */
  setRequestHandler<T extends MethodSchema>(
    schema: T,
    handler: (request: z.output<T>, extra: RequestHandlerExtra) => Result | Promise<Result>,
  ): void {
    const method = schema.shape.method.value;
    assertHandlerCapability(method, this.#capabilities);
    const run = method === "tools/call" ? checkedToolCall(handler) : handler;
    this.#requestHandlers.set(
      method,
      async (request, extra) => await run(schema.parse(request), extra),
    );
  }

  /** Handles notifications of the method `schema` names; one failing `schema` is dropped. */
  setNotificationHandler<T extends MethodSchema>(
    schema: T,
    handler: (notification: z.output<T>) => void | Promise<void>,
  ): void {
    const method = schema.shape.method.value;
    this.#notificationHandlers.set(method, async (n) => await handler(schema.parse(n)));
  }

  /** Takes over `transport` (its callbacks still run first) and starts it. */
  async connect(transport: Transport): Promise<void> {
    if (this.#transport) throw new Error("Already connected to a transport");
    this.#transport = transport;
    const { onclose, onerror, onmessage } = transport;
    transport.onclose = () => {
      onclose?.();
      this.#closed();
    };
    transport.onerror = (error) => {
      onerror?.(error);
      this.#error(error);
    };
    transport.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      this.#receive(message, extra);
    };
    await transport.start();
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.#transport?.close();
  }

  /** Sends a request to the client and resolves with its result, parsed by `schema`. */
  request<S extends z.ZodType>(
    request: OutgoingRequest,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.output<S>> {
    return this.#outgoing.send(this.#transport, request, { schema, options });
  }

  /** Sends a notification; fails when the server did not declare what it needs or is closed. */
  async notification(
    notification: ServerNotification,
    options?: TransportSendOptions,
  ): Promise<void> {
    if (!this.#transport) throw new Error("Not connected");
    assertNotificationCapability(notification.method, {
      server: this.#capabilities,
      client: this.getClientCapabilities(),
    });
    await this.#transport.send({ ...notification, jsonrpc: "2.0" } as JSONRPCMessage, options);
  }

  /** Sampling: asks the client's model (checks as the SDK's `Server.createMessage`). */
  createMessage(
    params: CreateMessageRequestParamsBase,
    options?: RequestOptions,
  ): Promise<CreateMessageResult>;
  /** Sampling with tools: the result may hold tool_use blocks. */
  createMessage(
    params: CreateMessageRequestParamsWithTools,
    options?: RequestOptions,
  ): Promise<CreateMessageResultWithTools>;
  createMessage(
    params: CreateMessageRequestParams,
    options?: RequestOptions,
  ): Promise<CreateMessageResult | CreateMessageResultWithTools> {
    return createMessage(this, params, options);
  }

  /** Elicitation: asks the user through the client; a form's answer must match its schema. */
  elicitInput(
    params: Parameters<typeof elicitInput>[1],
    options?: RequestOptions,
  ): ReturnType<typeof elicitInput> {
    return elicitInput(this, params, options);
  }

  /** `notifications/resources/updated` for `uri`. */
  sendResourceUpdated(params: { uri: string }): Promise<void> {
    return this.notification({ method: "notifications/resources/updated", params });
  }

  /** `notifications/resources/list_changed`. */
  sendResourceListChanged(): Promise<void> {
    return this.notification({ method: "notifications/resources/list_changed" });
  }

  /** `notifications/tools/list_changed`. */
  sendToolListChanged(): Promise<void> {
    return this.notification({ method: "notifications/tools/list_changed" });
  }

  /** `notifications/prompts/list_changed`. */
  sendPromptListChanged(): Promise<void> {
    return this.notification({ method: "notifications/prompts/list_changed" });
  }

  #initialize(request: InitializeRequest): Result {
    const requested = request.params.protocolVersion;
    this.#client = { capabilities: request.params.capabilities, info: request.params.clientInfo };
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      capabilities: this.#capabilities,
      serverInfo: this.#info,
      ...(this.#instructions && { instructions: this.#instructions }),
    };
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      this.#outgoing.receive(message);
    } else if (isJSONRPCRequest(message)) {
      this.#handle(message, extra);
    } else if (isJSONRPCNotification(message)) {
      const handler = this.#notificationHandlers.get(message.method);
      handler?.(message).catch((err) =>
        this.#error(new Error(`Uncaught error in notification handler: ${err}`))
      );
    } else {
      this.#error(new Error(`Unknown message type: ${JSON.stringify(message)}`));
    }
  }

  #handle(request: JSONRPCRequest, info?: MessageExtraInfo): void {
    // Replies go to the transport the request came on, even if the session reconnects meanwhile.
    const transport = this.#transport;
    const related = { relatedRequestId: request.id };
    this.#incoming.handle(request, {
      transport,
      handler: this.#requestHandlers.get(request.method),
      extra: (signal) => ({
        signal,
        requestId: request.id,
        sessionId: transport?.sessionId,
        _meta: request.params?._meta,
        authInfo: info?.authInfo,
        requestInfo: info?.requestInfo,
        sendNotification: async (notification) => {
          if (!signal.aborted) await this.notification(notification, related);
        },
        sendRequest: (r, schema, options) =>
          signal.aborted
            ? Promise.reject(new McpError(ErrorCode.ConnectionClosed, "Request was cancelled"))
            : this.request(r, schema, { ...options, ...related }),
      }),
    });
  }

  #closed(): void {
    this.#incoming.abortAll();
    this.#transport = undefined;
    this.onclose?.();
    this.#outgoing.closeAll();
  }

  #error(error: Error): void {
    this.onerror?.(error);
  }
}

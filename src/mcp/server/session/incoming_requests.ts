/**
 * @module The client's requests while a session handles them: each handler's run, its reply or
 * error on the transport the request came on, and cancellation — as the MCP SDK's `Protocol`
 * answers them (docs/architecture.md#what-engram-writes-where-a-library-exists).
 */
import type { z } from "zod";
import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  McpError,
  type MessageExtraInfo,
  type RequestId,
  type RequestMeta,
  type Result,
  type ServerNotification,
  type Transport,
} from "./mcp_protocol.ts";
import { CallToolResultSchema } from "./call_tool_result.ts";
import type { OutgoingRequest, RequestOptions } from "./outgoing_requests.ts";

/** What a request handler gets besides the request. */
export interface RequestHandlerExtra {
  /** Aborted when the client cancels the request or the session closes. */
  signal: AbortSignal;
  requestId: RequestId;
  sessionId?: string;
  _meta?: RequestMeta;
  authInfo?: MessageExtraInfo["authInfo"];
  requestInfo?: MessageExtraInfo["requestInfo"];
  /** Sends a notification tied to this request (on its stream, over HTTP). */
  sendNotification: (notification: ServerNotification) => Promise<void>;
  /** Sends a request to the client tied to this request. */
  sendRequest: <S extends z.ZodType>(
    request: OutgoingRequest,
    schema: S,
    options?: RequestOptions,
  ) => Promise<z.output<S>>;
}

/** A registered handler, taking the request as it came. */
export type RequestHandler = (
  request: JSONRPCRequest,
  extra: RequestHandlerExtra,
) => Promise<Result>;

/** The requests one session is handling, by id. */
export class IncomingRequests {
  #inFlight = new Map<RequestId, AbortController>();
  #onError: (error: Error) => void;

  /** `onError` hears about replies that could not be sent. */
  constructor(onError: (error: Error) => void) {
    this.#onError = onError;
  }

  /** How many requests are being handled. */
  get size(): number {
    return this.#inFlight.size;
  }

  /** The client cancelled request `id`: its handler's signal aborts and it is never answered. */
  cancel(id: RequestId, reason: unknown): void {
    this.#inFlight.get(id)?.abort(reason);
  }

  /** The connection closed: every handler's signal aborts. */
  abortAll(): void {
    const inFlight = this.#inFlight;
    this.#inFlight = new Map();
    for (const controller of inFlight.values()) controller.abort();
  }

  /**
   * Runs `handler` on `request` and sends its result, or its error (a numeric `code` kept, else
   * -32603), on `transport`; with no handler, -32601. `extra` builds what the handler gets.
   */
  handle(
    request: JSONRPCRequest,
    o: {
      transport: Transport | undefined;
      handler: RequestHandler | undefined;
      extra: (signal: AbortSignal) => RequestHandlerExtra;
    },
  ): void {
    const reply = (message: JSONRPCMessage) =>
      o.transport?.send(message).catch((err) =>
        this.#onError(new Error(`Failed to send response: ${err}`))
      );
    if (!o.handler) {
      void reply({
        jsonrpc: "2.0",
        id: request.id,
        error: { code: ErrorCode.MethodNotFound, message: "Method not found" },
      });
      return;
    }
    const controller = new AbortController();
    this.#inFlight.set(request.id, controller);
    const { signal } = controller;
    o.handler(request, o.extra(signal)).then(
      (result) => signal.aborted ? undefined : reply({ result, jsonrpc: "2.0", id: request.id }),
      (err) =>
        signal.aborted ? undefined : reply({ jsonrpc: "2.0", id: request.id, error: errorOf(err) }),
    ).finally(() => {
      if (this.#inFlight.get(request.id) === controller) this.#inFlight.delete(request.id);
    });
  }
}

/** A thrown value as a JSON-RPC error: its numeric code, else -32603, and its message and data. */
function errorOf(err: unknown): { code: number; message: string; data?: unknown } {
  const e = (typeof err === "object" && err !== null ? err : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  return {
    code: Number.isSafeInteger(e.code) ? e.code as number : ErrorCode.InternalError,
    message: typeof e.message === "string" ? e.message : "Internal error",
    ...(e.data !== undefined && { data: e.data }),
  };
}

/** A tools/call handler whose request and result are checked as the SDK's `Server` checks them. */
export function checkedToolCall<R, E>(
  handler: (request: R, extra: E) => Result | Promise<Result>,
): (request: R, extra: E) => Promise<Result> {
  return async (request, extra) => {
    const call = CallToolRequestSchema.safeParse(request);
    if (!call.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid tools/call request: ${call.error.message}`,
      );
    }
    const result = CallToolResultSchema.safeParse(await handler(request, extra));
    if (!result.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid tools/call result: ${result.error.message}`,
      );
    }
    return result.data;
  };
}

/**
 * @module The requests a session sends its client (roots/list, sampling, elicitation) and their
 * replies: ids, timeouts, cancellation by signal, and the reply checked against a schema — as the
 * MCP SDK's `Protocol.request` does
 * (docs/architecture.md#what-engram-writes-where-a-library-exists).
 */
import type { z } from "zod";
import {
  ErrorCode,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  McpError,
  type RequestId,
  type Transport,
} from "./mcp_protocol.ts";

/** How long the client may take to answer when the caller gives no timeout (the SDK's default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Options of one request to the client. */
export interface RequestOptions {
  /** Aborting it cancels the request: the client is told with `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Milliseconds before the request fails with -32001 (and is cancelled); default 60 s. */
  timeout?: number;
  /** The client request this one belongs to: over HTTP it travels on that request's stream. */
  relatedRequestId?: RequestId;
}

/** A request to the client, before its id. */
export interface OutgoingRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** What settles one pending request: its reply, or the error that ended it. */
type Settle = (reply: JSONRPCResultResponse | Error) => void;

/** The pending requests of one session. */
export class OutgoingRequests {
  #nextId = 0;
  #pending = new Map<number, Settle>();
  #onError: (error: Error) => void;

  /** `onError` hears about replies to no pending request. */
  constructor(onError: (error: Error) => void) {
    this.#onError = onError;
  }

  /** Sends `request` on `transport` and resolves with the reply's result parsed by `schema`. */
  send<S extends z.ZodType>(
    transport: Transport | undefined,
    request: OutgoingRequest,
    o: { schema: S; options?: RequestOptions },
  ): Promise<z.output<S>> {
    const { schema, options } = o;
    return new Promise((resolve, reject) => {
      if (!transport) return reject(new Error("Not connected"));
      if (options?.signal?.aborted) return reject(options.signal.reason);
      const id = this.#nextId++;
      const timeout = options?.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const sendOptions = { relatedRequestId: options?.relatedRequestId };
      const finish = () => {
        this.#pending.delete(id);
        clearTimeout(timer);
        options?.signal?.removeEventListener("abort", onAbort);
      };
      const cancel = (reason: unknown) => {
        if (!this.#pending.has(id)) return;
        finish();
        transport.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: String(reason) },
        }, sendOptions).catch((err) =>
          this.#onError(new Error(`Failed to send cancellation: ${err}`))
        );
        reject(
          reason instanceof McpError
            ? reason
            : new McpError(ErrorCode.RequestTimeout, String(reason)),
        );
      };
      const onAbort = () => cancel(options?.signal?.reason);
      const timer = setTimeout(
        () =>
          cancel(McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", { timeout })),
        timeout,
      );
      options?.signal?.addEventListener("abort", onAbort);
      this.#pending.set(id, (reply) => {
        finish();
        if (reply instanceof Error) return reject(reply);
        const parsed = schema.safeParse(reply.result);
        if (parsed.success) resolve(parsed.data);
        else reject(parsed.error);
      });
      const message: JSONRPCRequest = { ...request, jsonrpc: "2.0", id };
      transport.send(message, sendOptions).catch((err) => {
        finish();
        reject(err);
      });
    });
  }

  /** Settles the request a reply answers. */
  receive(reply: JSONRPCResultResponse | JSONRPCErrorResponse): void {
    const settle = this.#pending.get(Number(reply.id));
    if (!settle) {
      this.#onError(
        new Error(`Received a response for an unknown message ID: ${JSON.stringify(reply)}`),
      );
      return;
    }
    if (isJSONRPCResultResponse(reply)) settle(reply);
    else settle(McpError.fromError(reply.error.code, reply.error.message, reply.error.data));
  }

  /** Fails every pending request: the connection closed. */
  closeAll(): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    const error = McpError.fromError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const settle of pending) settle(error);
  }
}

/** @module A newline-delimited JSON-RPC transport over Deno's stdin/stdout that answers malformed input. */
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type Transport,
} from "./session/mcp_protocol.ts";
import { unrepresentableId, unrepresentableIdMessage } from "../request_id.ts";
import { PROTOCOL_VERSION } from "../../version.ts";
import { wireMessage } from "./mcp_errors.ts";

/** Lines longer than this are refused (a 5,000,000-character note fits with room for JSON escaping). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Streams the transport reads and writes. */
export interface StdioStreams {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

/**
 * Unlike the SDK's stdio transport, a line that is not JSON or not JSON-RPC gets a JSON-RPC error
 * reply (-32700 / -32600) instead of vanishing, and the session carries on.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called with each response that carries a negotiated protocol version. */
  onNegotiated?: (version: string) => void;
  /** Called for every line the client sends, well formed or not. */
  onActivity?: () => void;

  #streams: StdioStreams;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #encoder = new TextEncoder();

  constructor(streams: StdioStreams) {
    this.#streams = streams;
  }

  start(): Promise<void> {
    this.#writer = this.#streams.writable.getWriter();
    this.#readLoop().catch((err) => this.onerror?.(err as Error)).finally(() => this.close());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const result =
      (message as { result?: { protocolVersion?: unknown; serverInfo?: unknown } }).result;
    if (result && typeof result.protocolVersion === "string" && result.serverInfo) {
      this.onNegotiated?.(result.protocolVersion);
    }
    return this.#write(JSON.stringify(wireMessage(message)) + "\n");
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.catch(() => {});
    try {
      this.#writer?.releaseLock();
    } catch {
      // Already released.
    }
    this.onclose?.();
  }

  #write(text: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const bytes = this.#encoder.encode(text);
    // Serialise writes so two messages never interleave on stdout.
    this.#queue = this.#queue.then(() => this.#writer!.write(bytes));
    return this.#queue;
  }

  async #readLoop(): Promise<void> {
    const decoder = new TextDecoder();
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let overflow = false;
    for await (const chunk of this.#streams.readable) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, nl);
        start = nl + 1;
        if (overflow || pendingBytes + part.length > MAX_LINE_BYTES) {
          this.#reply(null, -32600, `message exceeds ${MAX_LINE_BYTES} bytes`);
        } else {
          pending.push(part);
          this.#handleLine(decoder.decode(concat(pending, pendingBytes + part.length)));
        }
        pending = [];
        pendingBytes = 0;
        overflow = false;
      }
      if (start < chunk.length && !overflow) {
        const rest = chunk.slice(start);
        pendingBytes += rest.length;
        if (pendingBytes > MAX_LINE_BYTES) {
          overflow = true;
          pending = [];
        } else pending.push(rest);
      }
    }
    if (pendingBytes > 0 && !overflow) {
      this.#handleLine(decoder.decode(concat(pending, pendingBytes)));
    }
  }

  #handleLine(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") return;
    this.onActivity?.();
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.#reply(null, -32700, `Parse error: ${(err as Error).message}`);
      return;
    }
    if (Array.isArray(value)) {
      this.#reply(
        null,
        -32600,
        `Invalid Request: JSON-RPC batches are not supported by protocol ${PROTOCOL_VERSION}`,
      );
      return;
    }
    const badId = unrepresentableId(value, line);
    if (badId !== undefined) {
      this.#reply(null, -32600, unrepresentableIdMessage(badId));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const validId = typeof id === "string" || typeof id === "number" ? id : null;
      this.#reply(validId, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    this.onmessage?.(parsed.data);
  }

  #reply(id: string | number | null, code: number, message: string): void {
    this.#write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n").catch((
      err,
    ) => this.onerror?.(err as Error));
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

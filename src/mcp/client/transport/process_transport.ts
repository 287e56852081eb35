/**
 * @module An MCP SDK `Transport` over a stdio server process engram started itself
 * (stdio_process.ts): the SDK's own stdio transport can only spawn, and it frames without a
 * per-message bound. Messages are newline-delimited JSON-RPC; a message over the limit is never
 * held — the request waiting for it gets a synthetic error naming the size and
 * `mcp.max_result_bytes`, and the session lives on. A line with no end past a hard ceiling ends
 * the session. The transport ends exactly once: when the process exits, stdout ends, or close()
 * is called, and every ending stops the whole process group.
 */
import { JSONRPCMessageSchema, type RequestId } from "../../sdk.ts";
import type { JSONRPCMessage, Transport } from "../../sdk.ts";
import { LineFramer } from "./line_framer.ts";
import {
  isUpstreamInitiated,
  oversizeRequestRefusal,
  oversizeResponse,
  recoverId,
} from "./oversize_message.ts";
import type { ProcessExit, StdioProcess } from "../launch/stdio_process.ts";
import { headExcerpt } from "../upstream_text.ts";

/** Options of a ProcessTransport. */
export interface ProcessTransportOptions {
  /** The largest message accepted, in bytes (`mcp.max_result_bytes`). */
  maxMessageBytes: number;
  /** Bytes without a newline after which the stream is given up on; default 4 × the limit. */
  runawayBytes?: number;
  /** Grace between the stop steps when the transport ends; default 500 ms. */
  stopGraceMs?: number;
}

/** Why a process transport ended. */
export type ProcessEnd =
  | { kind: "closed"; exit: ProcessExit }
  | { kind: "exited"; exit: ProcessExit }
  | { kind: "stdout_ended"; exit: ProcessExit }
  | { kind: "runaway"; bytes: number; exit: ProcessExit };

/** Lines on stdout that were not JSON-RPC. */
export interface StrayOutput {
  lines: number;
  /** The latest one, neutralised and shortened. */
  last: string | null;
}

/** The SDK Transport over a running StdioProcess. */
export class ProcessTransport implements Transport {
  /** Set by the SDK. */
  onclose?: () => void;
  /** Set by the SDK. */
  onerror?: (error: Error) => void;
  /** Set by the SDK. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** The protocol version agreed at initialize. */
  protocolVersion?: string;

  readonly process: StdioProcess;
  readonly #limit: number;
  readonly #runaway: number;
  readonly #grace: number;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  /** Ids of requests sent and not yet answered or cancelled: only these get a synthetic error. */
  readonly #pending = new Set<RequestId>();
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #ended = false;
  #resolveEnd!: (end: ProcessEnd) => void;
  readonly #stray: StrayOutput = { lines: 0, last: null };
  /** Settles once the transport has ended and its process is gone. */
  readonly ended: Promise<ProcessEnd>;

  constructor(process: StdioProcess, options: ProcessTransportOptions) {
    this.process = process;
    this.#limit = options.maxMessageBytes;
    this.#runaway = options.runawayBytes ?? 4 * options.maxMessageBytes;
    this.#grace = options.stopGraceMs ?? 500;
    this.ended = new Promise((resolve) => (this.#resolveEnd = resolve));
  }

  /** Starts reading stdout; the process is already running. */
  start(): Promise<void> {
    this.#writer = this.process.stdin.getWriter();
    void this.#read();
    void this.process.exited.then(() => this.#end({ kind: "exited" }));
    return Promise.resolve();
  }

  /** Writes one message as a line; resolves when the pipe took it (backpressure). */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#ended || !this.#writer) {
      throw new Error(`upstream ${JSON.stringify(this.process.server)} is not running`);
    }
    if ("method" in message) {
      if ("id" in message) this.#pending.add(message.id);
      else if (message.method === "notifications/cancelled") {
        this.#pending.delete((message.params as { requestId: RequestId }).requestId);
      }
    }
    await this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
  }

  /** Ends the session and stops the process group; resolves when it is gone. */
  async close(): Promise<void> {
    this.#end({ kind: "closed" });
    await this.ended;
  }

  /** Records the agreed protocol version (the SDK calls this after initialize). */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** What the process wrote to stdout that was not JSON-RPC. */
  strayOutput(): StrayOutput {
    return { ...this.#stray };
  }

  async #read(): Promise<void> {
    const framer = new LineFramer(this.#limit, this.#runaway);
    const reader = this.process.stdout.getReader();
    let notified = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.#ended) break;
        for (const frame of framer.push(value)) {
          // The SDK runs notification handlers a microtask later but responses at once, so a
          // progress notification read together with its result would be dropped; let it run.
          if (notified) await Promise.resolve();
          notified = false;
          if (frame.kind === "line") notified = this.#line(frame.bytes);
          else if (frame.kind === "oversize") this.#oversize(frame.size, frame.head, frame.tail);
          else {
            this.onerror?.(
              new Error(
                `upstream wrote ${frame.size} bytes to stdout without a message boundary; stopped it`,
              ),
            );
            this.#end({ kind: "runaway", bytes: frame.size });
          }
        }
      }
    } catch {
      // The pipe broke with the process; the exit says why.
    } finally {
      reader.releaseLock();
    }
    this.#end({ kind: "stdout_ended" });
  }

  /** Delivers one line; true when it was a notification. */
  #line(bytes: Uint8Array): boolean {
    const text = this.#decoder.decode(bytes);
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (error) {
      // Like the SDK: a stray line (a banner, a log line) is reported and skipped.
      this.#stray.lines++;
      this.#stray.last = headExcerpt(text);
      this.onerror?.(
        new Error(`upstream wrote a line that is not JSON-RPC: ${this.#stray.last}`, {
          cause: error,
        }),
      );
      return false;
    }
    if (("result" in message || "error" in message) && "id" in message) {
      this.#pending.delete(message.id as RequestId);
    }
    this.onmessage?.(message);
    return "method" in message && !("id" in message);
  }

  #oversize(size: number, head: string, tail: string): void {
    const fromUpstream = isUpstreamInitiated(head, tail);
    const id = recoverId(head, tail);
    if (fromUpstream) {
      // A request gets an error answer; a notification has nobody waiting for it.
      if (id !== null) {
        void this.send(oversizeRequestRefusal(id, size, this.#limit)).catch(() => {});
      }
      this.onerror?.(
        new Error(
          `upstream sent a ${size}-byte ${
            id === null ? "notification" : "request"
          }, over mcp.max_result_bytes (${this.#limit}); ${
            id === null ? "dropped it" : "refused it"
          }`,
        ),
      );
      return;
    }
    if (id !== null && this.#pending.delete(id)) {
      this.onmessage?.(oversizeResponse(id, size, this.#limit));
      return;
    }
    this.onerror?.(
      new Error(
        `upstream sent a ${size}-byte message, over mcp.max_result_bytes (${this.#limit}), that answers none of engram's pending requests; dropped it`,
      ),
    );
  }

  /** The one ending: tells the SDK at once, then stops the process group. */
  #end(why: { kind: "closed" | "exited" | "stdout_ended" } | { kind: "runaway"; bytes: number }) {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending.clear();
    const writer = this.#writer;
    // Closing stdin is MCP's polite stop; a stuck write must not hold up the stop that follows.
    if (writer) void writer.close().catch(() => {});
    const stopping = this.process.stop({ graceMs: why.kind === "runaway" ? 0 : this.#grace });
    void stopping.then((exit) => this.#resolveEnd({ ...why, exit }));
    this.onclose?.();
  }
}

/** @module One server-sent-events response body: events, keep-alive comments, and its end. */
import type { JSONRPCMessage } from "../mcp/sdk.ts";

const encoder = new TextEncoder();

/** Headers of every SSE response engram sends. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/** A writable SSE body; `onCancel` runs when the client goes away (not when the server closes it). */
export class SseWriter {
  /** The response body to hand to the client. */
  readonly body: ReadableStream<Uint8Array>;
  /** When something was last written, for keep-alives (ms since the epoch). */
  lastWrite = Date.now();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;

  constructor(options: { onCancel: () => void }) {
    this.body = new ReadableStream<Uint8Array>({
      start: (c) => void (this.#controller = c),
      cancel: () => {
        this.#closed = true;
        options.onCancel();
      },
    });
  }

  /** Whether the stream has ended (closed here or cancelled by the client). */
  get closed(): boolean {
    return this.#closed;
  }

  /** A `message` event carrying `message`, with `id` when the event can be resumed from. */
  event(id: string | undefined, message: JSONRPCMessage): boolean {
    const idLine = id === undefined ? "" : `id: ${id}\n`;
    return this.write(`event: message\n${idLine}data: ${JSON.stringify(message)}\n\n`);
  }

  /** Writes raw SSE text; false when the stream has already ended. */
  write(text: string): boolean {
    if (this.#closed) return false;
    try {
      this.#controller.enqueue(encoder.encode(text));
      this.lastWrite = Date.now();
      return true;
    } catch {
      this.#closed = true;
      return false;
    }
  }

  /** A keep-alive comment if nothing was written for `idleMs`. */
  keepAlive(idleMs: number, now: number): void {
    if (now - this.lastWrite >= idleMs) this.write(": keepalive\n\n");
  }

  /** Ends the stream after what was written so far. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#controller.close();
    } catch {
      // The client already went away.
    }
  }
}

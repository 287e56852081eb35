/**
 * @module Parses a byte stream of Server-Sent Events (the WHATWG event-stream format) into
 * records. Chunk boundaries may fall anywhere: inside a line, between CR and LF, or inside a
 * UTF-8 character.
 */

/** One dispatched event: its `event:` type when given and its `data:` lines joined by "\n". */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** Accumulates the fields of the event being read until a blank line dispatches it. */
interface Pending {
  event?: string;
  data: string[];
  id?: string;
}

/**
 * Yields the events of `stream` in order. Breaking out of the loop cancels the stream; an event
 * not terminated by a blank line before the stream ends is dropped, as the format requires.
 */
export async function* parseSse(stream: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = stream.getReader();
  // `stream: true` keeps a UTF-8 sequence split across chunks until its last byte arrives.
  const decoder = new TextDecoder();
  let buffer = "";
  // A CR ending one chunk may be the first half of a CRLF ending in the next.
  let skipLeadingLf = false;
  let pending: Pending = { data: [] };
  let finished = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (skipLeadingLf && buffer.length > 0) {
        if (buffer[0] === "\n") buffer = buffer.slice(1);
        skipLeadingLf = false;
      }
      let start = 0;
      while (true) {
        const end = lineEnd(buffer, start);
        if (end < 0) break;
        const line = buffer.slice(start, end);
        if (buffer[end] !== "\r") start = end + 1;
        else if (end + 1 < buffer.length) start = buffer[end + 1] === "\n" ? end + 2 : end + 1;
        else {
          start = end + 1;
          skipLeadingLf = true;
        }
        const outcome = feedLine(pending, line);
        if (outcome === undefined) continue;
        pending = { data: [] };
        if (outcome !== "reset") yield outcome;
      }
      buffer = buffer.slice(start);
    }
    finished = true;
  } finally {
    // Early exit (consumer break, thrown error) must release the connection behind the stream.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Index of the next CR or LF at or after `from`, or -1. */
function lineEnd(buffer: string, from: number): number {
  for (let i = from; i < buffer.length; i++) {
    const c = buffer.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}

/**
 * Applies one line to the pending event. A blank line ends the event: it comes back when it had
 * data, else "reset" (the format drops events without data lines).
 */
function feedLine(pending: Pending, line: string): SseEvent | "reset" | undefined {
  if (line === "") {
    if (pending.data.length === 0) return "reset";
    const event: SseEvent = { data: pending.data.join("\n") };
    if (pending.event) event.event = pending.event;
    if (pending.id !== undefined) event.id = pending.id;
    return event;
  }
  if (line.startsWith(":")) return undefined;
  const colon = line.indexOf(":");
  const field = colon < 0 ? line : line.slice(0, colon);
  let value = colon < 0 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1);
  if (field === "data") pending.data.push(value);
  else if (field === "event") pending.event = value;
  else if (field === "id" && !value.includes("\0")) pending.id = value;
  // "retry" and unknown fields are ignored: reconnection is not this parser's business.
  return undefined;
}

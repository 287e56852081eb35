/** @module A session's bounded SSE replay buffer, so a client reconnecting with Last-Event-ID gets what it missed. */
import type { EventStore, JSONRPCMessage } from "../mcp/sdk.ts";

/** Stream id of a session's GET stream (event ids are `<stream>.<seq>`). */
export const GET_STREAM_ID = "_GET_stream";

interface StoredEvent {
  id: string;
  streamId: string;
  seq: number;
  message: JSONRPCMessage;
}

/**
 * Event ids are `<streamId>.<seq>` with one counter per session: unique across the session's
 * streams, and the stream a resumption belongs to is read straight off the id.
 */
export class SessionEventStore implements EventStore {
  #limit: number;
  #seq = 0;
  #events: StoredEvent[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = ++this.#seq;
    const id = `${streamId}.${seq}`;
    this.#events.push({ id, streamId, seq, message });
    // Oldest first out: a client away for longer than the buffer covers misses the oldest events.
    if (this.#events.length > this.#limit) {
      this.#events.splice(0, this.#events.length - this.#limit);
    }
    return Promise.resolve(id);
  }

  /** The stream of an id this store issued and still holds events of; the GET stream always resumes. */
  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = parseEventId(eventId, this.#seq)?.streamId;
    const known = streamId !== undefined &&
      (streamId === GET_STREAM_ID || this.#events.some((e) => e.streamId === streamId));
    return Promise.resolve(known ? streamId : undefined);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = parseEventId(lastEventId, this.#seq);
    if (!last) throw new Error("unknown event id");
    for (const e of [...this.#events]) {
      // Priming events carry no message; a resumed stream replays only its own messages.
      if (e.streamId !== last.streamId || e.seq <= last.seq || isEmpty(e.message)) continue;
      await send(e.id, e.message);
    }
    return last.streamId;
  }
}

function parseEventId(id: string, maxSeq: number): { streamId: string; seq: number } | null {
  const dot = id.lastIndexOf(".");
  if (dot <= 0) return null;
  const seq = Number(id.slice(dot + 1));
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > maxSeq) return null;
  return { streamId: id.slice(0, dot), seq };
}

function isEmpty(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}

/**
 * @module The transport of one Streamable HTTP session: POSTed messages in; replies as one JSON
 * body or on an SSE stream per request; a GET stream for everything else; replay by Last-Event-ID.
 *
 * engram's own rather than the SDK's so that the reply mode is chosen per request (the SDK fixes
 * it per transport), an open GET stream counts as session activity, and a plain call costs no
 * stream, timer or replay-buffer entry. The HTTP checks (Accept, media type, body, session,
 * protocol version) happen before a message reaches it (streamable_http.ts).
 */
import type { JSONRPCMessage, Transport, TransportSendOptions } from "../mcp/sdk.ts";
import { GET_STREAM_ID, type SessionEventStore } from "./event_store.ts";
import { wireMessage } from "../mcp/server/mcp_errors.ts";
import { clientMayBeAsked, replyMode } from "./reply_mode.ts";
import { jsonError, RPC } from "./responses.ts";
import { SSE_HEADERS, SseWriter } from "./sse_writer.ts";

/** The first revision whose clients understand a priming event (an id and `retry:`, no data). */
const PRIMING_SINCE = "2025-11-25";

/** JSON-RPC's code for a request its sender cancelled. */
const REQUEST_CANCELLED = -32800;

/** How many GET-stream messages wait for a session's first GET stream (the oldest go first). */
const EARLY_LIMIT = 16;

type RequestId = string | number;

/** Where the reply to a pending request goes: a waiting JSON response, or an SSE stream. */
type Route = { json: (res: Response) => void } | { stream: string };

/** One session's transport; the MCP server connects to it like to any SDK transport. */
export class SessionTransport implements Transport {
  sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #events: SessionEventStore;
  #retryMs: number;
  #priming: boolean;
  /** Connected SSE streams by stream id. */
  #open = new Map<string, SseWriter>();
  #routes = new Map<RequestId, Route>();
  #nextStream = 0;
  #clientMayBeAsked = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  /**
   * GET-stream messages sent before the session's first GET stream opened (the session-ready log
   * notice goes out right after `notifications/initialized`, before a client can have opened
   * one); the first GET stream starts with them. Null once one opened: later gaps are resumed
   * with Last-Event-ID.
   */
  #early: { eventId: string; message: JSONRPCMessage }[] | null = [];

  constructor(
    sessionId: string,
    options: {
      events: SessionEventStore;
      retryMs: number;
      keepAliveMs: number;
      protocolVersion: string;
    },
  ) {
    this.sessionId = sessionId;
    this.#events = options.events;
    this.#retryMs = options.retryMs;
    this.#priming = options.protocolVersion >= PRIMING_SINCE;
    // One timer per session, not per stream: a plain call must not pay for arming one.
    const every = Math.max(250, Math.floor(options.keepAliveMs / 2));
    this.#keepAlive = setInterval(() => {
      const now = Date.now();
      for (const s of this.#open.values()) s.keepAlive(options.keepAliveMs, now);
    }, every);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Whether the client holds the GET stream open (a session in use, even without requests). */
  get listening(): boolean {
    return this.#open.has(GET_STREAM_ID);
  }

  /** Handles one POSTed message; `accept` is the request's Accept header. */
  async post(message: JSONRPCMessage, options: { accept: string }): Promise<Response> {
    if (this.#closed) return gone();
    if (!("method" in message && "id" in message)) {
      this.onmessage?.(message);
      if ("method" in message && message.method === "notifications/cancelled") {
        await this.#abandon((message.params as { requestId?: RequestId } | undefined)?.requestId);
      }
      return new Response(null, { status: 202 });
    }
    const id = message.id;
    if (this.#routes.has(id)) {
      return jsonError(400, `Invalid Request: request id ${id} is already in use in this session`, {
        code: RPC.invalidRequest,
        id,
      });
    }
    if (message.method === "initialize") this.#clientMayBeAsked = clientMayBeAsked(message);
    const mode = replyMode(options.accept, { message, clientMayBeAsked: this.#clientMayBeAsked });
    if (mode === "json") {
      return await new Promise<Response>((resolve) => {
        this.#routes.set(id, { json: resolve });
        this.onmessage?.(message);
      });
    }
    const streamId = `${++this.#nextStream}`;
    const stream = this.#connect(streamId);
    this.#routes.set(id, { stream: streamId });
    await this.#prime(stream, streamId);
    this.onmessage?.(message);
    return this.#response(stream);
  }

  /** Opens the GET stream, or resumes any stream after `lastEventId`. */
  async get(lastEventId: string | null): Promise<Response> {
    if (this.#closed) return gone();
    if (lastEventId === null) {
      if (this.#open.has(GET_STREAM_ID)) {
        return jsonError(409, "Conflict: this session already has an open GET stream");
      }
      const stream = this.#connect(GET_STREAM_ID);
      await this.#prime(stream, GET_STREAM_ID);
      for (const e of this.#early ?? []) stream.event(e.eventId, e.message);
      this.#early = null;
      return this.#response(stream);
    }
    const streamId = await this.#events.getStreamIdForEventId(lastEventId);
    if (streamId === undefined) {
      return jsonError(400, `Bad Request: unknown Last-Event-ID ${lastEventId}`);
    }
    if (this.#open.has(streamId)) {
      return jsonError(409, "Conflict: that stream is already connected");
    }
    const stream = this.#connect(streamId);
    if (streamId === GET_STREAM_ID) this.#early = null;
    await this.#events.replayEventsAfter(lastEventId, {
      send: (eventId, message) => {
        stream.event(eventId, message);
        return Promise.resolve();
      },
    });
    // A request stream whose reply is already out has nothing more to carry.
    if (streamId !== GET_STREAM_ID && !this.#pendingOn(streamId)) this.#disconnect(streamId);
    return this.#response(stream);
  }

  async send(sent: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) return;
    const message = wireMessage(sent);
    const isReply = ("result" in message || "error" in message) && "id" in message;
    const requestId = isReply ? message.id as RequestId : options?.relatedRequestId;
    const route = requestId === undefined ? undefined : this.#routes.get(requestId);
    if (route !== undefined && isReply) {
      this.#routes.delete(requestId!);
      await this.#reply(route, message);
      return;
    }
    if (route !== undefined && "stream" in route) {
      const eventId = await this.#events.storeEvent(route.stream, message);
      this.#open.get(route.stream)?.event(eventId, message);
      return;
    }
    // A reply nobody waits for any more (a cancelled request, already answered) goes nowhere.
    if (isReply) return;
    // Everything else, including what relates to a request answered as JSON, goes on the GET
    // stream, buffered so that a client reconnecting with Last-Event-ID still gets it.
    const eventId = await this.#events.storeEvent(GET_STREAM_ID, message);
    const stream = this.#open.get(GET_STREAM_ID);
    if (stream) stream.event(eventId, message);
    else if (this.#early) {
      this.#early.push({ eventId, message });
      if (this.#early.length > EARLY_LIMIT) this.#early.shift();
    }
  }

  /** Ends the GET stream (at shutdown: it only ever carries notifications). */
  closeGetStream(): void {
    this.#disconnect(GET_STREAM_ID);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearInterval(this.#keepAlive);
    for (const id of [...this.#open.keys()]) this.#disconnect(id);
    for (const route of this.#routes.values()) if ("json" in route) route.json(gone());
    this.#routes.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  /**
   * A request the client cancelled is answered -32800 (`Request cancelled`) on its own route, and
   * its stream ends. MCP says a receiver SHOULD NOT answer a cancelled request, but the request's
   * POST has to end anyway, and the plane engram follows answers -32800, so a client still waiting
   * learns why (docs/http.md#json-or-sse-replies-and-resuming-streams); an SDK client that
   * cancelled drops a reply to an id it no longer waits on. The handler's own late reply then finds
   * no route and goes nowhere.
   */
  async #abandon(requestId: RequestId | undefined): Promise<void> {
    const route = requestId === undefined ? undefined : this.#routes.get(requestId);
    if (route === undefined) return;
    this.#routes.delete(requestId!);
    await this.#reply(route, {
      jsonrpc: "2.0",
      id: requestId!,
      error: { code: REQUEST_CANCELLED, message: "Request cancelled" },
    });
  }

  /** Sends the reply to a request whose route was just taken: the stream's last event, or the JSON body. */
  async #reply(route: Route, message: JSONRPCMessage): Promise<void> {
    if ("stream" in route) {
      const eventId = await this.#events.storeEvent(route.stream, message);
      this.#open.get(route.stream)?.event(eventId, message);
      if (!this.#pendingOn(route.stream)) this.#disconnect(route.stream);
      return;
    }
    // new Response(string) rather than Response.json: a fifth of a plain call's CPU went there.
    route.json(
      new Response(JSON.stringify(message), {
        headers: { "Content-Type": "application/json", "mcp-session-id": this.sessionId },
      }),
    );
  }

  #connect(streamId: string): SseWriter {
    const stream: SseWriter = new SseWriter({
      // Only forget the stream if a resumption has not replaced it meanwhile.
      onCancel: () => {
        if (this.#open.get(streamId) === stream) this.#open.delete(streamId);
      },
    });
    this.#open.set(streamId, stream);
    return stream;
  }

  #disconnect(streamId: string): void {
    const stream = this.#open.get(streamId);
    if (!stream) return;
    this.#open.delete(streamId);
    stream.close();
  }

  /** A priming event (an id, `retry:`, no data) lets the client resume a stream cut before its first message. */
  async #prime(stream: SseWriter, streamId: string): Promise<void> {
    if (!this.#priming) return;
    const eventId = await this.#events.storeEvent(streamId, {} as JSONRPCMessage);
    stream.write(`id: ${eventId}\nretry: ${this.#retryMs}\ndata: \n\n`);
  }

  #pendingOn(streamId: string): boolean {
    for (const r of this.#routes.values()) if ("stream" in r && r.stream === streamId) return true;
    return false;
  }

  #response(stream: SseWriter): Response {
    return new Response(stream.body, {
      headers: { ...SSE_HEADERS, "mcp-session-id": this.sessionId },
    });
  }
}

function gone(): Response {
  return jsonError(404, "Session not found; initialize a new session", {
    code: RPC.sessionNotFound,
  });
}

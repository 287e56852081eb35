/** @module The legacy HTTP+SSE transport (2024-11-05): GET /sse opens a session, POST /messages feeds it. */
import type { JSONRPCMessage, Transport } from "../mcp/sdk.ts";
import { wireMessage } from "../mcp/server/mcp_errors.ts";
import type { TokenGrant } from "./auth.ts";
import { callerFor, type HttpContext } from "./context.ts";
import {
  isInitialize,
  negotiatedVersion,
  readJsonRpcBody,
  versionRejection,
} from "./jsonrpc_body.ts";
import { PROTOCOL_VERSION } from "../version.ts";
import { jsonError, RPC } from "./responses.ts";
import { type HttpSession, newSessionId } from "./sessions.ts";
import { SSE_HEADERS, SseWriter } from "./sse_writer.ts";

/** Path of the legacy message endpoint. */
export const MESSAGES_PATH = "/messages";

/** A server-to-client SSE stream carrying one session's replies; closing the stream ends the session. */
export class LegacySseTransport implements Transport {
  sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The SSE response to hand to the client. */
  readonly response: Response;

  #stream: SseWriter;
  #keepAlive?: ReturnType<typeof setInterval>;
  #keepAliveMs: number;
  #closed = false;
  #pending = new Set<string | number>();
  #draining = false;

  constructor(sessionId: string, options: { keepAliveMs: number }) {
    this.sessionId = sessionId;
    this.#keepAliveMs = options.keepAliveMs;
    this.#stream = new SseWriter({ onCancel: () => void this.close() });
    this.response = new Response(this.#stream.body, { headers: SSE_HEADERS });
  }

  start(): Promise<void> {
    this.#write(`event: endpoint\ndata: ${MESSAGES_PATH}?sessionId=${this.sessionId}\n\n`);
    this.#keepAlive = setInterval(() => this.#write(": keepalive\n\n"), this.#keepAliveMs);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.#closed && !this.#stream.event(undefined, wireMessage(message))) void this.close();
    if (("result" in message || "error" in message) && "id" in message) {
      this.#pending.delete(message.id as string | number);
      if (this.#draining && this.#pending.size === 0) void this.close();
    }
    return Promise.resolve();
  }

  /** Hands a POSTed message to the session's server. */
  deliver(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) this.#pending.add(message.id);
    this.onmessage?.(message);
  }

  /** Ends the stream once no request is awaiting its reply (at shutdown; the stream is the reply channel). */
  drain(): void {
    this.#draining = true;
    if (this.#pending.size === 0) void this.close();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#stream.close();
    this.onclose?.();
    return Promise.resolve();
  }

  #write(text: string): void {
    // A stream that cannot be written to any more has lost its client: the session ends.
    if (!this.#closed && !this.#stream.write(text)) void this.close();
  }
}

/** GET /sse: opens a session and returns its event stream. */
export async function handleSseOpen(
  req: Request,
  options: { ctx: HttpContext; grant: TokenGrant },
): Promise<Response> {
  const { ctx, grant } = options;
  if (req.method !== "GET") {
    return jsonError(405, "Method Not Allowed", { headers: { Allow: "GET" } });
  }
  if (!(req.headers.get("accept") ?? "").includes("text/event-stream")) {
    return jsonError(406, "Not Acceptable: Accept must list text/event-stream");
  }
  if (ctx.sessions.countFor(grant.clientId) >= ctx.settings.max_sessions_per_client) {
    return jsonError(
      429,
      `too many sessions: client ${grant.clientId} already holds ${ctx.settings.max_sessions_per_client}`,
    );
  }
  const id = newSessionId();
  const transport = new LegacySseTransport(id, { keepAliveMs: ctx.settings.sse_keepalive_ms });
  const server = ctx.newServer(callerFor(grant, { transport: "sse", sessionId: id }), {
    tools: grant.tools,
    onClose: () => ctx.sessions.forget(id),
  });
  const session: HttpSession = {
    id,
    kind: "sse",
    clientId: grant.clientId,
    server,
    transport,
    // Until its initialize settles a version, a session is taken to speak the pinned one.
    protocolVersion: PROTOCOL_VERSION,
    lastSeen: ctx.sessions.now(),
  };
  ctx.sessions.add(session);
  await server.connect(transport);
  ctx.logger.info("legacy SSE session opened", { session: id.slice(0, 8), client: grant.clientId });
  ctx.onSession?.(session);
  return transport.response;
}

/** POST /messages?sessionId=…: delivers one JSON-RPC message to a legacy session (202; replies go on the stream). */
export async function handleSseMessage(
  req: Request,
  options: { ctx: HttpContext; grant: TokenGrant },
): Promise<Response> {
  const { ctx, grant } = options;
  if (req.method !== "POST") {
    return jsonError(405, "Method Not Allowed", { headers: { Allow: "POST" } });
  }
  const id = new URL(req.url).searchParams.get("sessionId");
  if (!id) return jsonError(400, "Bad Request: sessionId query parameter is required");
  const found = ctx.sessions.lookup(id, grant.clientId, "sse");
  if (!found.ok) {
    return found.reason === "foreign"
      ? jsonError(403, "Forbidden: this session belongs to another client")
      : jsonError(404, "Session not found", { code: RPC.sessionNotFound });
  }
  const session = found.session;
  const message = await readJsonRpcBody(req, { maxBytes: ctx.settings.max_body_bytes });
  if (message instanceof Response) return message;
  const transport = session.transport as LegacySseTransport;
  if (isInitialize(message)) {
    const rejection = versionRejection(message, {
      acceptOlder: ctx.settings.accept_older_protocols,
    });
    if (rejection) {
      await transport.send(rejection);
      return new Response("Accepted", { status: 202 });
    }
    session.protocolVersion = negotiatedVersion(message.params?.protocolVersion);
  } else {
    const version = req.headers.get("mcp-protocol-version");
    if (version !== null && version !== session.protocolVersion) {
      return jsonError(400, `Bad Request: unsupported MCP-Protocol-Version ${version}`);
    }
  }
  transport.deliver(message);
  return new Response("Accepted", { status: 202 });
}

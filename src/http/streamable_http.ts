/** @module Streamable HTTP at /mcp: engram's checks in front of each session's transport (session_transport.ts). */
import type { JSONRPCMessage } from "../mcp/sdk.ts";
import type { TokenGrant } from "./auth.ts";
import { callerFor, type HttpContext } from "./context.ts";
import { SessionEventStore } from "./event_store.ts";
import {
  isInitialize,
  negotiatedVersion,
  readJsonRpcBody,
  versionRejection,
} from "./jsonrpc_body.ts";
import { PROTOCOL_VERSION } from "../version.ts";
import { jsonError, RPC } from "./responses.ts";
import { SessionTransport } from "./session_transport.ts";
import { type HttpSession, newSessionId } from "./sessions.ts";

/** Answers one request to /mcp from an authenticated caller. */
export async function handleMcp(
  req: Request,
  options: { ctx: HttpContext; grant: TokenGrant },
): Promise<Response> {
  const { ctx, grant } = options;
  const accept = req.headers.get("accept") ?? "";
  if (req.method === "POST") {
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return jsonError(
        406,
        "Not Acceptable: Accept must list application/json and text/event-stream",
      );
    }
    const message = await readJsonRpcBody(req, { maxBytes: ctx.settings.max_body_bytes });
    if (message instanceof Response) return message;
    if (isInitialize(message)) return await initialize(req, { ctx, grant, message });
    const found = resolveSession(req, { ctx, grant });
    if (found instanceof Response) return found;
    return await transportOf(found).post(message, { accept });
  }
  if (req.method === "GET") {
    if (!accept.includes("text/event-stream")) {
      return jsonError(406, "Not Acceptable: Accept must list text/event-stream");
    }
    const found = resolveSession(req, { ctx, grant });
    if (found instanceof Response) return found;
    return await transportOf(found).get(req.headers.get("last-event-id"));
  }
  if (req.method === "DELETE") {
    const found = resolveSession(req, { ctx, grant });
    if (found instanceof Response) return found;
    await ctx.sessions.close(found.id);
    return new Response(null, { status: 200 });
  }
  return jsonError(405, "Method Not Allowed", { headers: { Allow: "GET, POST, DELETE" } });
}

async function initialize(
  req: Request,
  options: {
    ctx: HttpContext;
    grant: TokenGrant;
    message: JSONRPCMessage & { id: string | number; params: { protocolVersion?: unknown } };
  },
): Promise<Response> {
  const { ctx, grant, message } = options;
  const rejection = versionRejection(message, {
    acceptOlder: ctx.settings.accept_older_protocols,
  });
  if (rejection) return Response.json(rejection);
  if (ctx.sessions.countFor(grant.clientId) >= ctx.settings.max_sessions_per_client) {
    return jsonError(
      429,
      `too many sessions: client ${grant.clientId} already holds ${ctx.settings.max_sessions_per_client}; end one (DELETE) or wait for it to expire`,
      { id: message.id },
    );
  }
  const id = newSessionId();
  const events = new SessionEventStore(ctx.settings.sse_buffer_events);
  const protocolVersion = negotiatedVersion(message.params?.protocolVersion);
  const transport = new SessionTransport(id, {
    events,
    retryMs: ctx.settings.sse_retry_ms,
    keepAliveMs: ctx.settings.sse_keepalive_ms,
    protocolVersion,
  });
  const server = ctx.newServer(callerFor(grant, { transport: "http", sessionId: id }), {
    tools: grant.tools,
    onClose: () => ctx.sessions.forget(id),
  });
  await server.connect(transport);
  const session: HttpSession = {
    id,
    kind: "streamable",
    clientId: grant.clientId,
    server,
    transport,
    protocolVersion,
    lastSeen: ctx.sessions.now(),
  };
  ctx.sessions.add(session);
  ctx.logger.info("MCP session opened", { session: id.slice(0, 8), client: grant.clientId });
  ctx.onSession?.(session);
  return await transport.post(message, { accept: req.headers.get("accept") ?? "" });
}

/**
 * The session a request names, or the error response.
 *
 * A missing MCP-Protocol-Version header is accepted: the spec's fallback (assume 2025-03-26) is
 * for servers with no other way to know the version, and a session knows what it negotiated. A
 * header naming any other revision than the session's is refused with 400.
 */
function resolveSession(
  req: Request,
  options: { ctx: HttpContext; grant: TokenGrant },
): HttpSession | Response {
  const id = req.headers.get("mcp-session-id");
  if (!id) return jsonError(400, "Bad Request: Mcp-Session-Id header is required");
  const found = options.ctx.sessions.lookup(id, options.grant.clientId, "streamable");
  if (!found.ok) {
    return found.reason === "foreign"
      ? jsonError(403, "Forbidden: this session belongs to another client")
      : jsonError(404, "Session not found; initialize a new session", {
        code: RPC.sessionNotFound,
      });
  }
  const version = req.headers.get("mcp-protocol-version");
  if (version !== null && version !== found.session.protocolVersion) {
    return jsonError(
      400,
      `Bad Request: unsupported MCP-Protocol-Version ${version}; this session speaks ${found.session.protocolVersion}`,
      { data: { supported: [found.session.protocolVersion ?? PROTOCOL_VERSION] } },
    );
  }
  return found.session;
}

function transportOf(session: HttpSession): SessionTransport {
  return session.transport as SessionTransport;
}

/** @module What the HTTP handlers share: settings, the session table, and how to build a session's server. */
import type { FileConfig } from "../config/schema.ts";
import type { Logger } from "../core/logger.ts";
import type { CallerContext } from "../core/types.ts";
import type { SessionServer } from "../mcp/server/session/session_server.ts";
import type { TokenGrant } from "./auth.ts";
import type { HttpSession, SessionRegistry } from "./sessions.ts";

/** The HTTP server's settings (the `server:` section of the config). */
export type HttpSettings = FileConfig["server"];

/** Shared state and hooks of one HTTP app. */
export interface HttpContext {
  settings: HttpSettings;
  sessions: SessionRegistry;
  logger: Logger;
  /** Builds the MCP server for a new session (the same factory stdio uses). */
  newServer: (
    caller: CallerContext,
    o: { onClose: () => void; tools?: readonly string[] },
  ) => SessionServer;
  /** Called once a session exists (tests use it to push server notifications). */
  onSession?: (session: HttpSession) => void;
}

/** The caller context of a session opened with `grant`. */
export function callerFor(
  grant: TokenGrant,
  options: { transport: "http" | "sse"; sessionId: string },
): CallerContext {
  return {
    clientId: grant.clientId,
    transport: options.transport,
    tier: grant.tier,
    brains: grant.brains,
    sessionId: options.sessionId,
  };
}

/**
 * @module logging/setLevel and the session's log notices (docs/tools.md#resources).
 * Once a client has set a level, the session's log records at or above it also go to that client
 * as `notifications/message` (logger "engram"); stderr logging carries on. engram's session notices
 * — the session is ready (after `notifications/initialized`), its level changed — are at `notice`:
 * they go while no level is set (a client cannot set one before the session is ready) and
 * afterwards when the level is `notice` or lower.
 */
import {
  type LoggingLevel,
  LoggingLevelSchema,
  type ServerNotification,
  SetLevelRequestSchema,
} from "./session/mcp_protocol.ts";
import type { SessionServer } from "./session/session_server.ts";
import type { Logger } from "../../core/logger.ts";
import { handleStrictly } from "./strict_handler.ts";

/** MCP levels, least severe first. */
const LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

/** The MCP level of each logger method. */
const LEVEL_OF: Record<keyof Logger, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/** The level of engram's own session notices (ready, level changed). */
const NOTICE = LEVELS.indexOf("notice");

/** Sends one notification. */
type Send = (notification: ServerNotification) => Promise<void>;

/** The session's loggers. */
export interface ClientLog {
  /** Logs to stderr and, once the client set a level, to the client (not tied to a request). */
  logger: Logger;
  /** The same, with notifications tied to one request (they travel on its stream over HTTP). */
  forRequest(send: Send): Logger;
}

/**
 * Registers logging/setLevel and the session notices; returns loggers that honour the level the
 * client set. `session` is what the ready notice tells the client about its session.
 */
export function registerLogging(
  server: SessionServer,
  base: Logger,
  o: { session?: Record<string, unknown> } = {},
): ClientLog {
  let threshold: number | undefined;
  const deliver = (send: Send, level: LoggingLevel, data: Record<string, unknown>) => {
    try {
      // A log line that cannot reach the client (closed session) is still on stderr.
      send({ method: "notifications/message", params: { level, logger: "engram", data } })
        .catch(() => {});
    } catch {
      // Not connected.
    }
  };
  const notice = (send: Send, data: Record<string, unknown>) => {
    if (threshold === undefined || NOTICE >= threshold) deliver(send, "notice", data);
  };
  handleStrictly(server, SetLevelRequestSchema, (request, extra) => {
    const level = request.params.level;
    threshold = LEVELS.indexOf(level);
    notice(extra.sendNotification, { message: `log level set to ${level}`, level });
    return {};
  });
  const previous = server.oninitialized;
  server.oninitialized = () => {
    previous?.();
    notice((n) => server.notification(n), { message: "session ready", ...o.session });
  };
  const make = (send: Send): Logger => {
    const method = (name: keyof Logger) => (message: string, fields?: Record<string, unknown>) => {
      base[name](message, fields);
      const level = LEVEL_OF[name];
      if (threshold === undefined || LEVELS.indexOf(level) < threshold) return;
      deliver(send, level, { message, ...fields });
    };
    return {
      debug: method("debug"),
      info: method("info"),
      warn: method("warn"),
      error: method("error"),
    };
  };
  return { logger: make((n) => server.notification(n)), forRequest: make };
}

/**
 * @module logging/setLevel: once a client has set a level, the session's log records at or above
 * it also go to that client as `notifications/message` (logger "engram"); stderr logging carries on.
 */
import {
  type LoggingLevel,
  LoggingLevelSchema,
  type Server,
  type ServerNotification,
  SetLevelRequestSchema,
} from "../sdk.ts";
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

/** Sends one notification. */
type Send = (notification: ServerNotification) => Promise<void>;

/** The session's loggers. */
export interface ClientLog {
  /** Logs to stderr and, once the client set a level, to the client (not tied to a request). */
  logger: Logger;
  /** The same, with notifications tied to one request (they travel on its stream over HTTP). */
  forRequest(send: Send): Logger;
}

/** Registers logging/setLevel and returns loggers that honour the level the client set. */
export function registerLogging(server: Server, base: Logger): ClientLog {
  let threshold: number | undefined;
  handleStrictly(server, SetLevelRequestSchema, (request) => {
    threshold = LEVELS.indexOf(request.params.level);
    return {};
  });
  const make = (send: Send): Logger => {
    const method = (name: keyof Logger) => (message: string, fields?: Record<string, unknown>) => {
      base[name](message, fields);
      const level = LEVEL_OF[name];
      if (threshold === undefined || LEVELS.indexOf(level) < threshold) return;
      const data = { message, ...fields };
      try {
        // A log line that cannot reach the client (closed session) is still on stderr.
        send({ method: "notifications/message", params: { level, logger: "engram", data } })
          .catch(() => {});
      } catch {
        // Not connected.
      }
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

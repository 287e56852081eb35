/**
 * @module Request handlers whose params are validated here. The SDK parses params with the request
 * schema before a handler runs and answers a mismatch with -32603 (internal error); MCP wants
 * -32602 (invalid params), with a message that says what was wrong.
 */
import { z } from "zod";
import type { Result, ServerNotification } from "./session/mcp_protocol.ts";
import type { SessionServer } from "./session/session_server.ts";
import { invalidParams } from "./mcp_errors.ts";

/** What a handler gets besides the request. */
export interface RequestExtra {
  signal: AbortSignal;
  /** Sends a notification tied to this request (on its stream, over HTTP). */
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

/** Registers `handler` for the method of `schema`; params that do not match are -32602. */
export function handleStrictly<T extends z.ZodObject<{ method: z.ZodLiteral<string> }>>(
  server: SessionServer,
  schema: T,
  handler: (request: z.output<T>, extra: RequestExtra) => Result | Promise<Result>,
): void {
  const method = schema.shape.method.value as string;
  server.setRequestHandler(
    z.looseObject({ method: z.literal(method) }),
    (request: unknown, extra: RequestExtra) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) {
        throw invalidParams(`invalid ${method} request: ${describeIssues(parsed.error)}`);
      }
      return handler(parsed.data, extra);
    },
  );
}

/** Zod issues on one line: `params.level: Invalid option: expected one of …; …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)
    .join("; ");
}

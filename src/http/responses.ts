/** @module HTTP error responses: JSON-RPC error bodies and EngramError codes mapped to statuses. */
import type { ErrorCode } from "../core/errors.ts";

/** JSON-RPC error codes the HTTP layer uses. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  serverError: -32000,
  sessionNotFound: -32001,
} as const;

/** An error response with a JSON-RPC error body (what MCP clients expect from /mcp). */
export function jsonError(
  status: number,
  message: string,
  options: {
    code?: number;
    id?: string | number | null;
    data?: unknown;
    headers?: Record<string, string>;
  } = {},
): Response {
  const error: Record<string, unknown> = { code: options.code ?? RPC.serverError, message };
  if (options.data !== undefined) error.data = options.data;
  return Response.json({ jsonrpc: "2.0", id: options.id ?? null, error }, {
    status,
    headers: options.headers,
  });
}

const STATUS: Record<ErrorCode, number> = {
  no_brain: 404,
  not_found: 404,
  invalid_argument: 400,
  file_too_large: 413,
  forbidden: 403,
  conflict: 409,
  not_implemented: 501,
  provider_unavailable: 503,
  rate_limited: 429,
  busy: 503,
  storage_corrupt: 503,
  // 507 Insufficient Storage (RFC 4918): the request may succeed once space is freed.
  storage_full: 507,
  internal: 500,
};

/** The HTTP status for an EngramError code. */
export function statusFor(code: ErrorCode): number {
  return STATUS[code] ?? 500;
}

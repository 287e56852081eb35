/**
 * @module What the OAuth endpoints answer with: JSON bodies and RFC 6749 §5.2 errors that are never
 * cached, CORS for browser-based clients, and form bodies (read under `readCapped`'s byte cap).
 */
import { OAuthError, type OAuthErrorCode } from "../../core/oauth/authorization_types.ts";

/** Headers on every OAuth JSON answer: tokens and codes must never sit in a cache. */
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/**
 * CORS for the endpoints browser-based clients call (metadata, /register, /token): any origin,
 * never credentials. These endpoints take no cookie, so a foreign page gains nothing it could not
 * get from a server of its own.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "WWW-Authenticate, Retry-After",
};

/** The answer to a CORS preflight (`OPTIONS`) for an endpoint taking `methods`. */
export function preflight(methods: readonly string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      "Access-Control-Allow-Methods": [...methods, "OPTIONS"].join(", "),
      "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
      "Access-Control-Max-Age": "600",
    },
  });
}

/** A JSON answer that is never cached, with CORS. */
export function oauthJson(
  body: unknown,
  options: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return Response.json(body, {
    status: options.status ?? 200,
    headers: { ...NO_STORE, ...CORS_HEADERS, ...options.headers },
  });
}

/** An RFC 6749 §5.2 error body: `error` and a description that names no secret. */
export function oauthErrorJson(
  error: OAuthErrorCode,
  description: string,
  options: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return oauthJson({ error, error_description: description }, {
    status: options.status ?? (error === "invalid_client" ? 401 : 400),
    headers: options.headers,
  });
}

/** The JSON error for a thrown OAuthError, with its own status; anything else is rethrown. */
export function fromOAuthError(err: unknown, headers?: Record<string, string>): Response {
  if (!(err instanceof OAuthError)) throw err;
  return oauthErrorJson(err.error, err.message, { status: err.options.status, headers });
}

/** `405` naming the methods an OAuth endpoint takes. */
export function methodNotAllowed(methods: readonly string[]): Response {
  return oauthErrorJson("invalid_request", `use ${methods.join(" or ")}`, {
    status: 405,
    headers: { Allow: [...methods, "OPTIONS"].join(", ") },
  });
}

/** The media type of a request, lowercased, without parameters. */
export function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/**
 * A form body's fields; a field given twice is an error (RFC 6749 §3.1: parameters must not be
 * included more than once), reported by name.
 */
export function parseForm(text: string): { fields: Map<string, string> } | { duplicate: string } {
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text)) {
    if (fields.has(key)) return { duplicate: key };
    fields.set(key, value);
  }
  return { fields };
}

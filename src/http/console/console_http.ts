/**
 * @module The console's HTTP edge: its security headers (a strict CSP: `default-src 'self'`, no
 * inline script or style), the session cookie, the same-origin and CSRF checks every write to
 * `/console/api/` passes, and its JSON and HTML responses (docs/console.md#security-model).
 */
import { EngramError } from "../../core/errors.ts";
import { statusFor } from "../responses.ts";
import type { SafeHtml } from "./html.ts";

/** The session cookie's name. */
export const COOKIE = "engram_console";
/** The header every write to /console/api/ carries with the session's CSRF token. */
export const CSRF_HEADER = "x-engram-csrf";

/** The CSP of every console response: this origin only, nothing inline, never framed. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers every console response carries. */
export function securityHeaders(extra: Record<string, string> = {}): Headers {
  return new Headers({
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
    ...extra,
  });
}

/** An HTML page. */
export function htmlResponse(body: SafeHtml, o: { status?: number } = {}): Response {
  return new Response(`<!doctype html>\n${body.value}`, {
    status: o.status ?? 200,
    headers: securityHeaders({ "Content-Type": "text/html; charset=utf-8" }),
  });
}

/** A JSON answer of the console API. */
export function apiJson(
  value: unknown,
  o: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify(value), {
    status: o.status ?? 200,
    headers: securityHeaders({ "Content-Type": "application/json", ...o.headers }),
  });
}

/** An error of the console API: `{ error: { code, message } }` with the code's HTTP status. */
export function apiError(err: EngramError, o: { headers?: Record<string, string> } = {}): Response {
  return apiJson({ error: { code: err.code, message: err.remote ?? err.message } }, {
    status: statusFor(err.code),
    headers: o.headers,
  });
}

/** A redirect (303: the next request is a GET). */
export function redirect(location: string, o: { headers?: Headers } = {}): Response {
  const headers = o.headers ?? securityHeaders();
  headers.set("Location", location);
  return new Response(null, { status: 303, headers });
}

/** The value of one cookie of the request, or null. */
export function cookieOf(req: Request, name: string): string | null {
  const header = req.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The Set-Cookie value of a session (or of its removal when `secret` is null). */
export function sessionCookie(
  secret: string | null,
  o: { secure: boolean; maxAgeS: number },
): string {
  return [
    `${COOKIE}=${secret ?? ""}`,
    "Path=/console",
    "HttpOnly",
    "SameSite=Strict",
    ...(o.secure ? ["Secure"] : []),
    `Max-Age=${secret === null ? 0 : o.maxAgeS}`,
  ].join("; ");
}

/**
 * Refuses a write that a page of another origin may have sent: `Origin`, when present, must be
 * engram's own (`own`, the public URL's origin or the one the request reached), and
 * `Sec-Fetch-Site`, when present, `same-origin` (or `none`: typed by the user).
 */
export function sameOriginWrite(req: Request, own: string): EngramError | null {
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== own) {
    return new EngramError(
      "forbidden",
      `cross-origin request refused: Origin ${origin} is not this console's (${own})`,
    );
  }
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    return new EngramError("forbidden", `cross-site request refused (Sec-Fetch-Site: ${site})`);
  }
  return null;
}

/** Refuses a write without the session's CSRF token in `X-Engram-CSRF`. */
export function csrfProblem(req: Request, expected: string): EngramError | null {
  const got = req.headers.get(CSRF_HEADER);
  if (got !== null && constantTimeEqual(got, expected)) return null;
  return new EngramError(
    "forbidden",
    got === null
      ? "missing X-Engram-CSRF header; console writes come from the console's own pages"
      : "wrong X-Engram-CSRF token; reload the page (the session may have changed)",
  );
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Reads a JSON object body (at most `maxBytes`), or throws `invalid_argument`. */
export async function jsonBody(req: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new EngramError("invalid_argument", "send the body as Content-Type: application/json");
  }
  const text = new TextDecoder().decode(await boundedBytes(req, maxBytes));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EngramError("invalid_argument", "the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new EngramError("invalid_argument", "the body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/** The request body, refused with `file_too_large` once it passes `maxBytes`. */
export async function boundedBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!req.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    parts.push(chunk);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function tooLarge(maxBytes: number): EngramError {
  const mib = maxBytes / (1024 * 1024);
  return new EngramError(
    "file_too_large",
    `the body is over ${Number.isInteger(mib) ? `${mib} MiB` : `${maxBytes} bytes`}; send less`,
  );
}

/**
 * @module Whether a POSTed request is answered with one JSON body or with an SSE stream.
 *
 * Clients must accept both. The Accept header decides when it ranks one above the other (q-values).
 * When it ranks them equally, as most clients send it, a request that may need the stream gets it:
 * one asking for progress, or any request of a client that can be asked things mid-call (sampling,
 * elicitation), since those requests travel on the stream. Everything else gets plain JSON: one
 * body, no stream to set up, keep alive or buffer for resumption.
 */
import type { JSONRPCMessage } from "../mcp/sdk.ts";

/** How a request is answered. */
export type ReplyMode = "json" | "sse";

/** The reply mode for `message` given the request's Accept header. */
export function replyMode(
  accept: string,
  options: { message: JSONRPCMessage; clientMayBeAsked: boolean },
): ReplyMode {
  const json = quality(accept, "application/json");
  const sse = quality(accept, "text/event-stream");
  if (json !== sse) return json > sse ? "json" : "sse";
  return options.clientMayBeAsked || wantsProgress(options.message) ? "sse" : "json";
}

/** Whether an initialize request's client capabilities let the server send it requests mid-call. */
export function clientMayBeAsked(message: JSONRPCMessage): boolean {
  const caps = (message as { params?: { capabilities?: Record<string, unknown> } }).params
    ?.capabilities;
  return caps?.sampling !== undefined || caps?.elicitation !== undefined;
}

function wantsProgress(message: JSONRPCMessage): boolean {
  const meta = (message as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta;
  return meta?.progressToken !== undefined;
}

/** The q-value the Accept header gives `type` (exact, then `major/*`, then `*\/*`), 0 if none. */
export function quality(accept: string, type: string): number {
  const major = type.slice(0, type.indexOf("/"));
  let exact: number | undefined;
  let wildMajor: number | undefined;
  let wildAll: number | undefined;
  for (const part of accept.split(",")) {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    let q = 1;
    for (const p of params) {
      if (p.startsWith("q=")) {
        const n = Number(p.slice(2));
        q = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
      }
    }
    if (range === type) exact = Math.max(exact ?? 0, q);
    else if (range === `${major}/*`) wildMajor = Math.max(wildMajor ?? 0, q);
    else if (range === "*/*") wildAll = Math.max(wildAll ?? 0, q);
  }
  return exact ?? wildMajor ?? wildAll ?? 0;
}

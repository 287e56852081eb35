/**
 * @module The client transports for remote upstreams: the SDK's Streamable HTTP transport (which
 * honours the server's SSE `retry:` and resumes with `Last-Event-ID`) and its legacy SSE
 * transport, with the server's `${VAR}`-expanded headers and a fetch that holds each body or SSE
 * event to `mcp.max_result_bytes`, and for a server that requires OAuth, engram's provider and the
 * fetch that refreshes under the lease (src/mcp/client/oauth/). Loopback and private addresses are
 * allowed: the URL comes from the operator's config, which is trusted (agent input never reaches it).
 */
import { settlesWithin } from "../../../core/settles_within.ts";
import type { EnvSnapshot } from "../../../config/env.ts";
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import { SSEClientTransport, StreamableHTTPClientTransport } from "../../sdk_client.ts";
import { cappedFetch, type FetchLike } from "./capped_fetch.ts";
import { expandValues } from "../launch/launch_env.ts";
import type { ConnectionAuth } from "../oauth/connection_auth.ts";

/** Options of httpClientTransport. */
export interface HttpTransportOptions {
  /** engram's environment, for `${VAR}` in headers. */
  env: EnvSnapshot;
  /** The largest JSON body or SSE event accepted (`mcp.max_result_bytes`). */
  maxMessageBytes: number;
  /** The fetch under the cap (tests); default the global fetch. */
  fetch?: FetchLike;
  /** OAuth for a server that requires it (docs/upstream.md#oauth-upstreams); none: headers only. */
  auth?: ConnectionAuth;
}

/** A remote upstream's transport. */
export type HttpClientTransport = StreamableHTTPClientTransport | SSEClientTransport;

/**
 * A new transport for one connection to `server` (a reconnect needs a new one: the SDK skips
 * initialize on a transport that already has a session id). The launch rules have already
 * checked that every referenced variable is set.
 */
export function httpClientTransport(
  server: HttpServerConfig,
  options: HttpTransportOptions,
): HttpClientTransport {
  const headers = expandValues(server.headers, options.env).values;
  const auth = options.auth;
  const base = auth ? auth.wrapFetch(options.fetch ?? globalThis.fetch) : options.fetch;
  const fetch = cappedFetch(options.maxMessageBytes, base);
  const url = new URL(server.url);
  const authProvider = auth?.authProvider;
  if (server.transport === "sse") {
    return new SSEClientTransport(url, { requestInit: { headers }, fetch, authProvider });
  }
  return new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch, authProvider });
}

/** Ends a remote session politely: DELETE for Streamable HTTP (bounded), then close. */
export async function closeHttpTransport(
  transport: HttpClientTransport,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await settlesWithin(transport.terminateSession().catch(() => {}), options.timeoutMs ?? 1000);
  }
  await transport.close();
}

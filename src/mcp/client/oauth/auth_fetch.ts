/**
 * @module The fetch under an OAuth upstream's transport, before the SDK sees a response
 * (docs/upstream.md#oauth-upstreams). The SDK answers a 401 by running its own authorization
 * flow, which would spend the refresh token outside engram's lease; here a 401 to a request that
 * carried engram's access token is answered first by a refresh under the lease and one retry with
 * the fresh token. A 403 `insufficient_scope` is remembered (a step-up needs a person). A
 * `resource_metadata` on another origin is refused before anything is fetched from it. And the
 * server's own configured headers are never sent to another origin (the authorization server).
 */
import { extractWWWAuthenticateParams } from "../../sdk_client.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";

/** What the wrapper asks of its connection. */
export interface AuthFetchHooks {
  /** The MCP server's URL: responses from its origin are the ones judged. */
  serverUrl: URL;
  /** Header names the server's config entry sets (lower case). */
  staticHeaders: readonly string[];
  /** Throws when a `resource_metadata` URL may not be used. */
  checkResourceMetadataUrl(url: URL): void;
  /** The server refused a request for lack of scope; `scope` is what it asks for. */
  onInsufficientScope(scope: string | undefined): void;
  /** A request carrying access token `token` got 401: a fresh token to retry with, or null. */
  onRejected(token: string): Promise<string | null>;
}

/** `base`, with engram's OAuth handling of the MCP server's 401 and 403 responses. */
export function authFetch(base: FetchLike, hooks: AuthFetchHooks): FetchLike {
  const origin = hooks.serverUrl.origin;
  return async (input, init) => {
    const url = new URL(input);
    const sameOrigin = url.origin === origin;
    const request = sameOrigin ? init : withoutHeaders(init, hooks.staticHeaders);
    const response = await base(input, request);
    if (!sameOrigin || (response.status !== 401 && response.status !== 403)) return response;
    const challenge = extractWWWAuthenticateParams(response);
    if (challenge.resourceMetadataUrl) {
      try {
        hooks.checkResourceMetadataUrl(challenge.resourceMetadataUrl);
      } catch (error) {
        await response.body?.cancel().catch(() => {});
        throw error;
      }
    }
    if (response.status === 403) {
      if (challenge.error === "insufficient_scope") hooks.onInsufficientScope(challenge.scope);
      return response;
    }
    const sent = bearerOf(request?.headers);
    if (sent === null) return response;
    const fresh = await hooks.onRejected(sent);
    if (fresh === null) return response;
    await response.body?.cancel().catch(() => {});
    const headers = new Headers(request?.headers);
    headers.set("authorization", `Bearer ${fresh}`);
    return await base(input, { ...request, headers });
  };
}

/** The access token of a `Bearer` Authorization header, or null. */
function bearerOf(headers: HeadersInit | undefined): string | null {
  const value = new Headers(headers).get("authorization");
  const match = value?.match(/^Bearer\s+(.+)$/i);
  return match ? match[1] : null;
}

/** `init` without the named headers. */
function withoutHeaders(
  init: RequestInit | undefined,
  names: readonly string[],
): RequestInit | undefined {
  if (!init?.headers || names.length === 0) return init;
  const headers = new Headers(init.headers);
  for (const name of names) headers.delete(name);
  return { ...init, headers };
}

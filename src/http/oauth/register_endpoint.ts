/**
 * @module `/register` (RFC 7591 dynamic client registration; docs/connectors.md#endpoints): JSON
 * metadata in, the registered client out, rate-limited per remote address.
 */
import type { AuthorizationServer } from "../../core/oauth/authorization_types.ts";
import { readCapped } from "../jsonrpc_body.ts";
import type { AddressLimiter } from "./address_limiter.ts";
import { fromOAuthError, mediaType, oauthErrorJson, oauthJson } from "./oauth_responses.ts";

/** The largest registration document accepted. */
const MAX_REGISTRATION_BYTES = 16 * 1024;

/** `POST /register`. */
export async function registerEndpoint(
  req: Request,
  options: {
    server: AuthorizationServer;
    limiter: AddressLimiter;
    /** The client's address (behind trusted proxies, the forwarded one). */
    remote: string;
    remoteKey: string;
  },
): Promise<Response> {
  const wait = options.limiter.take(options.remoteKey);
  if (wait > 0) {
    return oauthErrorJson(
      "temporarily_unavailable",
      `too many registrations from your address; retry in ${wait} s`,
      { status: 429, headers: { "Retry-After": String(wait) } },
    );
  }
  if (mediaType(req) !== "application/json") {
    return oauthErrorJson("invalid_client_metadata", "the registration must be application/json");
  }
  const text = await readCapped(req, MAX_REGISTRATION_BYTES);
  if (text === null) {
    return oauthErrorJson(
      "invalid_client_metadata",
      `the registration is over ${MAX_REGISTRATION_BYTES} bytes`,
      { status: 413 },
    );
  }
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    return oauthErrorJson("invalid_client_metadata", "the registration is not JSON");
  }
  try {
    const out = await options.server.register(metadata, { remote: options.remote });
    const { client } = out;
    return oauthJson({
      client_id: client.client_id,
      client_id_issued_at: out.client_id_issued_at,
      ...(out.client_secret !== undefined
        ? { client_secret: out.client_secret, client_secret_expires_at: 0 }
        : {}),
      ...(client.client_name !== null ? { client_name: client.client_name } : {}),
      redirect_uris: client.redirect_uris,
      token_endpoint_auth_method: client.token_endpoint_auth_method,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }, { status: 201 });
  } catch (err) {
    return fromOAuthError(err);
  }
}

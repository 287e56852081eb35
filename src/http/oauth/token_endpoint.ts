/**
 * @module `/token` (docs/connectors.md#endpoints): a form-encoded code exchange or refresh, the
 * client authenticated by `client_secret_basic`, `client_secret_post` or `none`; answers and RFC
 * 6749 §5.2 errors as JSON that is never cached.
 */
import { z } from "zod";
import type { AuthorizationServer, TokenRequest } from "../../core/oauth/authorization_types.ts";
import { readCapped } from "../jsonrpc_body.ts";
import type { AddressLimiter } from "./address_limiter.ts";
import {
  fromOAuthError,
  mediaType,
  oauthErrorJson,
  oauthJson,
  parseForm,
} from "./oauth_responses.ts";

/** The largest token request body accepted. */
const MAX_TOKEN_BODY_BYTES = 16 * 1024;

/** Most of the request's values are opaque strings; bounded so no field can be enormous. */
const value = z.string().min(1).max(4096);

const CodeGrant = z.object({
  grant_type: z.literal("authorization_code"),
  code: value,
  code_verifier: value,
  redirect_uri: value,
  resource: value.optional(),
});

const RefreshGrant = z.object({
  grant_type: z.literal("refresh_token"),
  refresh_token: value,
  scope: value.optional(),
  resource: value.optional(),
});

/** What a client proved about itself: its id, and a secret if it has one. */
interface ClientCredentials {
  client_id: string;
  client_secret?: string;
  basic: boolean;
}

/** `POST /token`. */
export async function tokenEndpoint(
  req: Request,
  options: { server: AuthorizationServer; limiter: AddressLimiter; remoteKey: string },
): Promise<Response> {
  const wait = options.limiter.take(options.remoteKey);
  if (wait > 0) {
    return oauthErrorJson(
      "temporarily_unavailable",
      `too many token requests; retry in ${wait} s`,
      {
        status: 429,
        headers: { "Retry-After": String(wait) },
      },
    );
  }
  if (mediaType(req) !== "application/x-www-form-urlencoded") {
    return oauthErrorJson(
      "invalid_request",
      "the token request must be application/x-www-form-urlencoded",
    );
  }
  const text = await readCapped(req, MAX_TOKEN_BODY_BYTES);
  if (text === null) {
    return oauthErrorJson("invalid_request", `the body is over ${MAX_TOKEN_BODY_BYTES} bytes`, {
      status: 413,
    });
  }
  const parsed = parseForm(text);
  if ("duplicate" in parsed) {
    return oauthErrorJson("invalid_request", `the parameter ${parsed.duplicate} was given twice`);
  }
  const fields = Object.fromEntries(parsed.fields);
  const client = clientCredentials(req, parsed.fields);
  if (typeof client === "string") {
    return oauthErrorJson("invalid_client", client, {
      headers: { "WWW-Authenticate": 'Basic realm="engram"' },
    });
  }
  const grantType = fields.grant_type;
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    return grantType === undefined
      ? oauthErrorJson("invalid_request", "grant_type is missing")
      : oauthErrorJson(
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token",
      );
  }
  const grant = (grantType === "authorization_code" ? CodeGrant : RefreshGrant).safeParse(fields);
  if (!grant.success) {
    const names = [...new Set(grant.error.issues.map((i) => String(i.path[0])))];
    return oauthErrorJson("invalid_request", `missing or malformed: ${names.join(", ")}`);
  }
  const request = {
    ...grant.data,
    client_id: client.client_id,
    auth_method: client.basic
      ? "client_secret_basic"
      : client.client_secret === undefined
      ? "none"
      : "client_secret_post",
    ...(client.client_secret !== undefined ? { client_secret: client.client_secret } : {}),
  } as TokenRequest;
  try {
    return oauthJson(await options.server.token(request));
  } catch (err) {
    // A client that authenticated with Basic is told how to retry (RFC 6749 §5.2).
    return fromOAuthError(
      err,
      client.basic ? { "WWW-Authenticate": 'Basic realm="engram"' } : undefined,
    );
  }
}

/**
 * The client's credentials: HTTP Basic (RFC 6749 §2.3.1, each part form-encoded), or
 * `client_id` (and `client_secret`) in the body; a string says why they cannot be read.
 */
function clientCredentials(req: Request, fields: Map<string, string>): ClientCredentials | string {
  const header = req.headers.get("authorization");
  const bodyId = fields.get("client_id");
  const bodySecret = fields.get("client_secret");
  if (header !== null) {
    const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header);
    if (!match) {
      return "the Authorization header must be HTTP Basic with the client's id and secret";
    }
    let decoded: string;
    try {
      decoded = new TextDecoder("utf-8", { fatal: true }).decode(
        Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)),
      );
    } catch {
      return "the Basic credentials are not valid base64 of UTF-8";
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return "the Basic credentials must be client_id:client_secret";
    let id: string, secret: string;
    try {
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      return "the Basic credentials are not form-encoded correctly";
    }
    if (bodySecret !== undefined) {
      return "authenticate one way only: Basic or client_secret in the body, not both";
    }
    if (bodyId !== undefined && bodyId !== id) {
      return "client_id in the body differs from the one in the Basic credentials";
    }
    return { client_id: id, client_secret: secret, basic: true };
  }
  if (bodyId === undefined || bodyId === "") return "client_id is missing";
  return bodySecret === undefined
    ? { client_id: bodyId, basic: false }
    : { client_id: bodyId, client_secret: bodySecret, basic: false };
}

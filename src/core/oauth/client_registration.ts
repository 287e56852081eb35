/**
 * @module What a client may register (RFC 7591) or describe in a client-ID metadata document
 * (MCP 2025-11-25): redirect URIs that are https, or http on a loopback host only; the
 * authorization-code grant (with refresh tokens); a token-endpoint auth method engram supports.
 * The `client_name` is the client's own text: kept as given (bounded), never an identifier.
 */
import { isLoopbackHost } from "../loopback.ts";
import { z } from "zod";
import type { OAuthGrantType } from "../ports/oauth_store.ts";
import { OAuthError, type TokenEndpointAuthMethod } from "./authorization_types.ts";

/** What engram keeps of a client's metadata, validated. */
export interface ClientMetadata {
  redirect_uris: string[];
  client_name: string | null;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  grant_types: OAuthGrantType[];
}

/** The most redirect URIs one client may register. */
const MAX_REDIRECT_URIS = 16;

/** The longest redirect URI or client_id URL accepted. */
const MAX_URI_CHARS = 2048;

/** The longest client_name kept. */
export const MAX_CLIENT_NAME_CHARS = 200;

const AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;
const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/** The fields engram reads; every other field of the metadata is ignored (RFC 7591 §2). */
const Metadata = z.looseObject({
  redirect_uris: z.array(z.string().max(MAX_URI_CHARS)).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().max(MAX_CLIENT_NAME_CHARS).optional(),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
});

/** Why `uri` cannot be a redirect URI, or null: https, or http on a loopback host; no fragment. */
export function redirectUriProblem(uri: string): string | null {
  if (!URL.canParse(uri)) return `redirect URI ${JSON.stringify(uri)} is not an absolute URL`;
  const url = new URL(uri);
  if (url.hash !== "" || uri.includes("#")) {
    return `redirect URI ${JSON.stringify(uri)} has a fragment`;
  }
  if (url.username !== "" || url.password !== "") {
    return `redirect URI ${JSON.stringify(uri)} carries credentials`;
  }
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return null;
  return `redirect URI ${
    JSON.stringify(uri)
  } must be https, or http on a loopback host (127.0.0.1, [::1], localhost)`;
}

/**
 * Whether `requested` is one of `registered`: exactly, or (RFC 8252 §7.3, OAuth 2.1 §8.4.2) a
 * loopback IP redirect that differs only in its port, since native apps listen on a port the
 * system hands them at the time of the request.
 */
export function redirectUriRegistered(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested)) return false;
  const want = new URL(requested);
  if (want.protocol !== "http:" || !isLoopbackIp(want.hostname)) return false;
  return registered.some((r) => {
    const have = new URL(r);
    return have.protocol === "http:" && have.hostname === want.hostname &&
      have.pathname === want.pathname && have.search === want.search;
  });
}

function isLoopbackIp(hostname: string): boolean {
  return hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Validates RFC 7591 registration metadata; refusals are `invalid_redirect_uri` or `invalid_client_metadata`. */
export function parseRegistration(metadata: unknown): ClientMetadata {
  const parsed = Metadata.safeParse(metadata);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".") || "the body";
    const code = issue.path[0] === "redirect_uris"
      ? "invalid_redirect_uri"
      : "invalid_client_metadata";
    throw new OAuthError(code, `${field}: ${issue.message}`, { status: 400 });
  }
  return checkedMetadata(parsed.data, {
    // RFC 7591 §2: without a method, a client authenticates with client_secret_basic.
    defaultMethod: "client_secret_basic",
    fail: (code, message) => new OAuthError(code, message, { status: 400 }),
  });
}

/**
 * Validates a client-ID metadata document fetched from `url`: its `client_id` must be the URL
 * itself, and it may not claim a shared secret (a public document cannot hold one).
 */
export function parseMetadataDocument(url: string, document: unknown): ClientMetadata {
  const refuse = (message: string) =>
    new OAuthError("invalid_client", `client metadata document ${url}: ${message}`, {
      status: 400,
    });
  const parsed = Metadata.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refuse(`${issue.path.join(".") || "the document"}: ${issue.message}`);
  }
  const doc = parsed.data as Record<string, unknown>;
  if (doc.client_id !== url) {
    throw refuse(`its client_id ${JSON.stringify(doc.client_id)} is not the document's URL`);
  }
  if ("client_secret" in doc || "client_secret_expires_at" in doc) {
    throw refuse("a metadata document may not carry a client secret");
  }
  const method = parsed.data.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    throw refuse(
      `token_endpoint_auth_method ${
        JSON.stringify(method)
      } is not supported for a metadata document; use "none"`,
    );
  }
  return checkedMetadata(parsed.data, { defaultMethod: "none", fail: (_, m) => refuse(m) });
}

/**
 * Why `clientId` cannot name a client-ID metadata document, or null: an https URL with a path,
 * no fragment, credentials or dot segments.
 */
export function metadataDocumentUrlProblem(clientId: string): string | null {
  if (clientId.length > MAX_URI_CHARS || !URL.canParse(clientId)) {
    return "is not a URL";
  }
  const url = new URL(clientId);
  if (url.protocol !== "https:") return "is not an https URL";
  if (url.pathname === "/" || url.pathname === "") return "has no path";
  if (url.hash !== "" || clientId.includes("#")) return "has a fragment";
  if (url.username !== "" || url.password !== "") return "carries credentials";
  if (/\/\.\.?(\/|$|\?)/.test(clientId.replace(/^https:\/\/[^/]*/i, ""))) {
    return "has . or .. path segments";
  }
  return null;
}

/** Whether a client id is a URL (a metadata document) rather than an id engram issued. */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

function checkedMetadata(
  data: z.infer<typeof Metadata>,
  options: {
    defaultMethod: TokenEndpointAuthMethod;
    fail: (code: "invalid_redirect_uri" | "invalid_client_metadata", message: string) => Error;
  },
): ClientMetadata {
  for (const uri of data.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw options.fail("invalid_redirect_uri", problem);
  }
  const method = data.token_endpoint_auth_method ?? options.defaultMethod;
  if (!(AUTH_METHODS as readonly string[]).includes(method)) {
    throw options.fail(
      "invalid_client_metadata",
      `token_endpoint_auth_method ${JSON.stringify(method)} is not supported; use ${
        AUTH_METHODS.join(", ")
      }`,
    );
  }
  const grants = data.grant_types ?? ["authorization_code"];
  const unsupported = grants.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unsupported !== undefined || !grants.includes("authorization_code")) {
    throw options.fail(
      "invalid_client_metadata",
      `grant_types ${
        JSON.stringify(grants)
      } must include "authorization_code" and may add only "refresh_token"`,
    );
  }
  const responses = data.response_types ?? ["code"];
  if (responses.some((r) => r !== "code")) {
    throw options.fail(
      "invalid_client_metadata",
      `response_types ${JSON.stringify(responses)}: only "code" is supported`,
    );
  }
  return {
    redirect_uris: [...new Set(data.redirect_uris)],
    client_name: data.client_name === undefined || data.client_name === ""
      ? null
      : data.client_name,
    token_endpoint_auth_method: method as TokenEndpointAuthMethod,
    grant_types: [...new Set(grants)] as OAuthGrantType[],
  };
}

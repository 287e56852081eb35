/**
 * @module Who engram is to an authorization server (docs/upstream.md#oauth-upstreams), in the
 * spec's order of preference: a client pre-registered in the server's config entry (`client_id`,
 * `client_secret` from a `${VAR}`), else the client-ID metadata document the entry names (used
 * when the server advertises support), else dynamic registration with the metadata below.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import { expandReferences, type HttpServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import { VERSION } from "../../../version.ts";
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
} from "../../sdk_client.ts";

/**
 * The pre-registered client of `server`'s entry, its secret read from the environment now; null
 * when the entry names none. An unset variable is `invalid_argument` naming it (the launch rules
 * block the server for it before any connection gets here).
 */
export function configuredClient(
  server: HttpServerConfig,
  env: EnvSnapshot,
): OAuthClientInformationMixed | null {
  const oauth = server.oauth;
  if (oauth?.client_id === undefined) return null;
  if (oauth.client_secret === undefined) return { client_id: oauth.client_id };
  const secret = expandReferences(oauth.client_secret, env);
  if (secret.missing.length > 0) {
    throw new EngramError(
      "invalid_argument",
      `upstream ${JSON.stringify(server.name)}: oauth.client_secret refers to \${${
        secret.missing[0]
      }}, which is not set; export it in engram's environment`,
    );
  }
  return { client_id: oauth.client_id, client_secret: secret.value };
}

/**
 * What engram registers dynamically: a native app on a loopback redirect, asking for the
 * authorization-code and refresh grants; a public client (`none`) where the server offers it, else
 * whatever method the server assigns (its secret is kept sealed).
 */
export function clientMetadata(
  server: HttpServerConfig,
  redirectUrl: string,
  metadata?: AuthorizationServerMetadata,
): OAuthClientMetadata {
  const scope = server.oauth?.scopes?.join(" ");
  const publicClient = metadata?.token_endpoint_auth_methods_supported?.includes("none") ?? false;
  return {
    client_name: "engram",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    software_id: "engram",
    software_version: VERSION,
    ...(publicClient ? { token_endpoint_auth_method: "none" } : {}),
    ...(scope ? { scope } : {}),
  };
}

/** The scopes of `a` and `b` as one space-separated list, each once, `a`'s first; null when none. */
export function unionScopes(...lists: (string | null | undefined)[]): string | null {
  const all = lists.flatMap((l) => (l ?? "").split(" ")).filter((s) => s.length > 0);
  return all.length ? [...new Set(all)].join(" ") : null;
}

/**
 * @module Where a remote upstream's login stands, read from the database alone (no connection, no
 * secret opened): for `engram mcp auth status`, `doctor` and `review` (docs/upstream.md#auth-status).
 */
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import type { UpstreamCredentials } from "../../../core/ports/upstream_credentials.ts";
import { loginCommand } from "./oauth_errors.ts";

/**
 * `no_auth`: engram keeps nothing and no server asked for a login (it needs none, or was never
 * used); `static_headers`: the entry sends its own Authorization header, so OAuth is not used;
 * `logged_in`: usable tokens (refreshed when they expire, if `refreshable`); `refresh_failing`:
 * the last refresh could not reach an answer; `needs_login`: someone must run the login.
 */
export type AuthStateKind =
  | "no_auth"
  | "static_headers"
  | "logged_in"
  | "refresh_failing"
  | "needs_login";

/** One server's login, as status shows it; never a token or secret. */
export interface UpstreamAuthState {
  server: string;
  transport: "http" | "sse";
  state: AuthStateKind;
  /** When the access token expires (ISO), when engram keeps one. */
  expires_at: string | null;
  /** Whether engram can refresh the tokens without a person. */
  refreshable: boolean;
  scope: string | null;
  /** The scope a step-up asked for, asked for at the next login. */
  required_scope: string | null;
  /** How engram is known to the authorization server. */
  client: "preregistered" | "metadata_document" | "dynamic" | null;
  /** The authorization server, from the last login's discovery. */
  authorization_server: string | null;
  logged_in_at: string | null;
  refreshed_at: string | null;
  /** Why it needs a login or the refresh fails; or that the tokens were sealed with another key. */
  detail: string | null;
  /** The command that fixes it, when something needs fixing. */
  fix: string | null;
}

/**
 * The state of `server` from its credentials row (null: none kept) at `now`. `keyId` is the id of
 * the secret key in use (null: there is none yet); tokens sealed under another key count as gone.
 */
export function authStateOf(
  server: HttpServerConfig,
  row: UpstreamCredentials | null,
  o: { now: Date; keyId: string | null },
): UpstreamAuthState {
  const base: UpstreamAuthState = {
    server: server.name,
    transport: server.transport,
    state: "no_auth",
    expires_at: row?.expires_at ?? null,
    refreshable: row?.refreshable ?? false,
    scope: row?.scope ?? null,
    required_scope: row?.required_scope ?? null,
    client: server.oauth?.client_id !== undefined ? "preregistered" : row?.client_kind ?? null,
    authorization_server: discoveredServer(row),
    logged_in_at: row?.logged_in_at ?? null,
    refreshed_at: row?.refreshed_at ?? null,
    detail: null,
    fix: null,
  };
  if (Object.keys(server.headers).some((h) => h.toLowerCase() === "authorization")) {
    return { ...base, state: "static_headers" };
  }
  if (row === null) return base;
  const needs = (detail: string): UpstreamAuthState => ({
    ...base,
    state: "needs_login",
    detail,
    fix: loginCommand(server.name),
  });
  if (row.status === "needs_login") return needs(row.detail ?? "not logged in");
  if (row.tokens === null) return needs("no tokens are kept");
  if (row.key_id !== null && row.key_id !== o.keyId) {
    return needs(
      `its tokens were sealed with key ${row.key_id}, but the key in use is ${
        o.keyId ?? "none"
      }: restore that key, or log in again`,
    );
  }
  const expired = row.expires_at !== null && Date.parse(row.expires_at) <= o.now.getTime();
  if (expired && !row.refreshable) {
    return needs(`its access token expired at ${row.expires_at} and there is no refresh token`);
  }
  if (row.status === "refresh_failing") {
    return {
      ...base,
      state: "refresh_failing",
      detail: row.detail,
      fix: `engram tries again on the next call; or log in again with: ${
        loginCommand(server.name)
      }`,
    };
  }
  return { ...base, state: "logged_in" };
}

/** One line for people: `logged in until 2026-…, refreshed automatically`. */
export function describeAuthState(s: UpstreamAuthState): string {
  switch (s.state) {
    case "no_auth":
      return "no auth needed (nothing kept; none was asked for)";
    case "static_headers":
      return "static Authorization header from the config entry (no OAuth)";
    case "logged_in": {
      const until = s.expires_at
        ? `logged in until ${s.expires_at}`
        : "logged in (no expiry given)";
      return s.refreshable ? `${until}, refreshed automatically` : until;
    }
    case "refresh_failing":
      return `refresh failing: ${s.detail ?? "unknown"}`;
    case "needs_login":
      return `needs login: ${s.detail ?? "not logged in"}`;
  }
}

function discoveredServer(row: UpstreamCredentials | null): string | null {
  const url = (row?.discovery as { authorizationServerUrl?: unknown } | null)
    ?.authorizationServerUrl;
  return typeof url === "string" ? url : null;
}

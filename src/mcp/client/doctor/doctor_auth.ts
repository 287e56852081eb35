/**
 * @module `engram mcp doctor`'s OAuth checks (docs/upstream.md#review-servers-and-doctor): the
 * `auth` check of a remote server — where its login stands, read from the database — and what a
 * connect that failed for OAuth's sake says and how to fix it: a server that needs a login gets
 * the login command (not "check the URL"), one whose authorization server fails a check of
 * engram's gets that check named.
 */
import { describeAuthState, type UpstreamAuthState } from "../oauth/auth_state.ts";
import {
  loginCommand,
  needsLoginOf,
  type OAuthCheck,
  oauthCheckErrorOf,
} from "../oauth/oauth_errors.ts";

/** The `auth` check of one remote server. */
export interface AuthCheck {
  ok: boolean;
  detail: string;
  /** What to do about a failure; empty when it passed. */
  fix: string;
}

/**
 * The `auth` check from a server's login state: no auth needed, a static header and a usable
 * login pass; a login that is needed, or a refresh that keeps failing, fails with its fix.
 */
export function authCheck(state: UpstreamAuthState): AuthCheck {
  const detail = describeAuthState(state);
  if (state.state === "needs_login") {
    return {
      ok: false,
      detail,
      fix: state.required_scope
        ? `log in again for the wider scope (${state.required_scope}): ${
          loginCommand(state.server)
        }`
        : `log in with: ${loginCommand(state.server)}`,
    };
  }
  if (state.state === "refresh_failing") {
    return {
      ok: false,
      detail,
      fix: state.fix ?? `log in again with: ${loginCommand(state.server)}`,
    };
  }
  return { ok: true, detail, fix: "" };
}

/** Why a connect failed, when OAuth is the reason: what to say, and the fix. */
export interface OAuthConnectFailure {
  /** `needs_login`: a person must log in; `refused`: engram refuses the authorization server. */
  kind: "needs_login" | "refused";
  detail: string;
  fix: string;
  /** The refused check, for `refused`. */
  check?: OAuthCheck;
}

/** The OAuth reason behind a failed connect to `server` (the error or its causes), or null. */
export function oauthConnectFailure(error: unknown, server: string): OAuthConnectFailure | null {
  const login = needsLoginOf(error);
  if (login) {
    return {
      kind: "needs_login",
      detail: `the server requires an OAuth login: ${login.reason}`,
      fix: `log in with: ${loginCommand(server)}`,
    };
  }
  const refused = oauthCheckErrorOf(error);
  if (refused) {
    return {
      kind: "refused",
      check: refused.check,
      detail: refused.message,
      fix:
        `engram does not log in to an authorization server that fails its OAuth check ${refused.check}; ask the server's operator to fix it, or use a static Authorization header in the entry if the server offers one`,
    };
  }
  return null;
}

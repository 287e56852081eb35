/**
 * @module The errors of engram's OAuth client (docs/upstream.md#oauth-upstreams): a server that
 * needs a person to log in — said with the one command that fixes it — and a check engram refuses
 * an authorization server for, named, so the operator can tell which one and why. Neither ever
 * carries a token, code or secret.
 */
import { EngramError } from "../../../core/errors.ts";
import { headExcerpt } from "../upstream_text.ts";

/** The checks engram holds an authorization server to, beyond what the SDK checks. */
export type OAuthCheck =
  | "pkce_s256"
  | "https_endpoint"
  | "metadata_origin"
  | "resource"
  | "state";

/** What each check asks, for messages and docs/upstream.md#where-engram-differs-from-the-spec. */
const CHECK_RULES: Record<OAuthCheck, string> = {
  pkce_s256: "the authorization server must offer PKCE with S256",
  https_endpoint: "OAuth endpoints must use https (plain http only on a loopback host)",
  metadata_origin: "OAuth metadata must come from the origin it describes",
  resource: "the protected resource named by the metadata must be this server",
  state: "the callback must carry the state engram sent",
};

/** The command that logs in to `server`. */
export function loginCommand(server: string): string {
  return `engram mcp auth login ${server}`;
}

/** A server that cannot be used until someone logs in (again): `forbidden`, with the fix. */
export class NeedsLoginError extends EngramError {
  /** The server. */
  readonly server: string;
  /** Why, in a few words (never a secret). */
  readonly reason: string;

  constructor(server: string, reason: string) {
    super(
      "forbidden",
      `upstream ${JSON.stringify(server)} needs a login: ${reason}; log in with: ${
        loginCommand(server)
      }`,
    );
    this.name = "NeedsLoginError";
    this.server = server;
    this.reason = reason;
  }
}

/** Refusing an authorization server by one of engram's checks: `forbidden`, naming it. */
export class OAuthCheckError extends EngramError {
  /** The check that refused. */
  readonly check: OAuthCheck;

  constructor(server: string, check: OAuthCheck, detail: string) {
    super(
      "forbidden",
      `upstream ${JSON.stringify(server)}: OAuth check ${check} failed (${
        CHECK_RULES[check]
      }): ${detail}; engram will not log in to it`,
    );
    this.name = "OAuthCheckError";
    this.check = check;
  }
}

/** Upstream words (an OAuth `error_description`, a URL) made safe and short for a message. */
export function upstreamWords(text: string, max = 160): string {
  return headExcerpt(text, max);
}

/**
 * The NeedsLoginError behind `error` (itself, or the cause of a failed connect), or null: for
 * callers that answer it by logging in (`engram mcp review`, the conformance driver).
 */
export function needsLoginOf(error: unknown): NeedsLoginError | null {
  return causeOf(error, NeedsLoginError);
}

/** The OAuthCheckError behind `error` (itself, or the cause of a failed connect), or null. */
export function oauthCheckErrorOf(error: unknown): OAuthCheckError | null {
  return causeOf(error, OAuthCheckError);
}

/** `error` or one of its causes a few levels down that is a `kind`, or null. */
function causeOf<T extends Error>(
  error: unknown,
  kind: abstract new (...args: never[]) => T,
): T | null {
  let at: unknown = error;
  for (let depth = 0; at instanceof Error && depth < 4; depth++) {
    if (at instanceof kind) return at;
    at = at.cause;
  }
  return null;
}

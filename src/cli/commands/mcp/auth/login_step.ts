/**
 * @module The interactive OAuth login as `engram mcp auth login` and `engram mcp review` run it
 * (docs/upstream.md#logging-in): the authorization URL shown for a person to open (engram opens
 * no browser), the wait for the browser on 127.0.0.1, and the outcome in one line — never a token.
 */
import type { HttpServerConfig } from "../../../../config/mcp_servers.ts";
import type { LoginResult } from "../../../../mcp/client/oauth/login_flow.ts";
import type { UpstreamOAuth } from "../../../../mcp/client/oauth/upstream_oauth.ts";
import type { UpstreamSetup } from "../../../upstreams.ts";

/** How the login talks to the person. */
export interface LoginStepOptions {
  /** Writes one line where the person sees it. */
  write(line: string): void;
  /** Put before each line (review indents its steps). */
  indent?: string;
  /** Ctrl-C. */
  signal?: AbortSignal;
}

/** Logs in to `server`, showing each authorization URL through `o.write`. */
export async function loginStep(
  u: UpstreamSetup,
  server: HttpServerConfig,
  o: LoginStepOptions & { oauth: UpstreamOAuth },
): Promise<LoginResult> {
  const pad = o.indent ?? "";
  return await o.oauth.login(server, {
    maxMessageBytes: u.config.mcp.max_result_bytes,
    requestTimeoutMs: u.config.mcp.request_timeout_ms,
  }, {
    ...(o.signal ? { signal: o.signal } : {}),
    onAuthorizationUrl: (url, redirectUrl) => {
      o.write(
        `${pad}to log in to upstream "${server.name}", open this URL in a browser (engram waits for it to come back to ${redirectUrl}):`,
      );
      o.write("");
      o.write(`${pad}  ${url}`);
      o.write("");
    },
  });
}

/** The outcome for people: `logged in to upstream "x": token valid until …; scope: …`. */
export function describeLogin(server: string, result: LoginResult): string {
  if (result.status === "no_auth_needed") {
    return `upstream "${server}" answered without asking for a login: it needs none, and nothing was kept`;
  }
  const until = result.expires_at ? `token valid until ${result.expires_at}` : "no expiry given";
  const refresh = result.refreshable
    ? "refreshed automatically"
    : "no refresh token: log in again when it expires";
  return `logged in to upstream "${server}": ${until}, ${refresh}; scope: ${
    result.scope ?? "none named"
  }`;
}

/** The audit line of a login (never a token). */
export function loginChange(result: LoginResult): string {
  return `logged in (${result.authorizations} authorization(s), scope ${
    result.scope ?? "none named"
  })`;
}

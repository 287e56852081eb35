/**
 * @module OAuth on an ordinary connection to an upstream (docs/upstream.md#oauth-upstreams): every
 * command but `engram mcp auth login`, and `engram serve` and `engram stdio`, where nobody can
 * log in. The transport sends the kept access token, refreshed before it expires; a 401 is
 * answered by a refresh under the lease (auth_fetch.ts). When the SDK then still wants to
 * authorize — no login, a refused refresh, a step-up to more scope — this provider stops it before
 * anything is fetched: the server is marked `needs_login` with the reason, and the call fails
 * with `engram mcp auth login NAME`.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthTokens,
} from "../../sdk_client.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import { authFetch, type AuthFetchHooks } from "./auth_fetch.ts";
import { clientMetadata, configuredClient, unionScopes } from "./client_identity.ts";
import type { CredentialVault } from "./credential_vault.ts";
import { NeedsLoginError } from "./oauth_errors.ts";
import { checkResourceMetadataUrl } from "./oauth_guards.ts";
import { expiresSoon, refreshTokens } from "./token_refresh.ts";

/** What a transport takes to speak OAuth: the SDK's provider, and engram's fetch around its own. */
export interface ConnectionAuth {
  authProvider: OAuthClientProvider;
  /** `base` with engram's handling of 401 and 403 (auth_fetch.ts). */
  wrapFetch(base: FetchLike): FetchLike;
}

/** Gives a connection to `server` its OAuth, or null when the server does not use OAuth. */
export interface ConnectionAuthSource {
  connectionAuth(server: HttpServerConfig): ConnectionAuth | null;
}

/** What a connection's OAuth needs. */
export interface ConnectionAuthDeps {
  vault: CredentialVault;
  env: EnvSnapshot;
  /** The fetch token refreshes go through; default the global fetch. */
  fetch?: FetchLike;
  /** Told when another process holds the refresh lease and this one waits (tests watch it). */
  onLeaseBusy?: (server: string) => void;
}

/** How long a still-valid token is used after a refresh failed before refreshing is tried again. */
const REFRESH_RETRY_MS = 15_000;

/** Never used: this provider refuses to authorize before the SDK would need a redirect. */
const NO_REDIRECT = "http://127.0.0.1/engram-cannot-log-in-here";

/** The provider of an ordinary connection: kept tokens only, never an authorization flow. */
export class ConnectionProvider implements OAuthClientProvider {
  readonly #server: HttpServerConfig;
  readonly #deps: ConnectionAuthDeps;
  /** The scope a 403 asked for on this connection, if one did. */
  #stepUp: string | null = null;
  /** Until when a refresh that could not be answered is not tried again (epoch ms). */
  #retryAfter = 0;

  constructor(server: HttpServerConfig, deps: ConnectionAuthDeps) {
    this.#server = server;
    this.#deps = deps;
  }

  get redirectUrl(): string {
    return NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.#server, NO_REDIRECT);
  }

  /** The server asked for `scope` with a 403 `insufficient_scope`. */
  stepUp(scope: string | undefined): void {
    this.#stepUp = scope ?? "";
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const row = await this.#deps.vault.row(this.#server.name);
    return configuredClient(this.#server, this.#deps.env) ??
      (row ? await this.#deps.vault.client(row) : null) ?? undefined;
  }

  /**
   * The kept access token, refreshed first when it expires within a minute. A refresh the
   * authorization server cannot answer keeps the old token while it is still valid (and is tried
   * again after 15 s). The refresh token is never handed to the SDK, which would spend it outside
   * the lease.
   */
  async tokens(): Promise<OAuthTokens | undefined> {
    const { vault } = this.#deps;
    const row = await vault.row(this.#server.name);
    if (row === null || row.tokens === null) return undefined;
    let tokens = await vault.tokens(row);
    const now = vault.now();
    const expired = row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime();
    // After a refresh the authorization server could not answer, a still-valid token is used
    // for a while without asking again on every request.
    const resting = !expired && now.getTime() < this.#retryAfter;
    if (expiresSoon(row, now) && row.refreshable && !resting) {
      try {
        tokens = await refreshTokens(this.#server, this.#deps);
      } catch (error) {
        if (expired) throw error;
        this.#retryAfter = now.getTime() + REFRESH_RETRY_MS;
      }
    }
    return tokens
      ? { access_token: tokens.access_token, token_type: tokens.token_type }
      : undefined;
  }

  saveTokens(): Promise<void> {
    return this.#refuse();
  }

  redirectToAuthorization(): Promise<void> {
    return this.#refuse();
  }

  saveCodeVerifier(): Promise<void> {
    return this.#refuse();
  }

  codeVerifier(): Promise<string> {
    return this.#refuse();
  }

  /** The SDK's first step of every authorization: refused here, before anything is fetched. */
  discoveryState(): Promise<undefined> {
    return this.#refuse();
  }

  /** Marks the server `needs_login`, saying why, and throws the error that says how to fix it. */
  async #refuse(): Promise<never> {
    const { vault } = this.#deps;
    const name = this.#server.name;
    const row = await vault.row(name);
    if (this.#stepUp !== null) {
      const required = unionScopes(row?.scope, this.#stepUp) ?? "";
      const reason = `the server asks for more scope (${
        this.#stepUp || "unnamed"
      }) than the login granted (${row?.scope || "none named"})`;
      await vault.markNeedsLogin(name, reason, { requiredScope: required });
      throw new NeedsLoginError(name, reason);
    }
    if (row?.status === "needs_login" && row.detail) throw new NeedsLoginError(name, row.detail);
    const reason = row?.tokens ? "the server refused its access token" : "not logged in";
    await vault.markNeedsLogin(name, reason, { dropTokens: true });
    throw new NeedsLoginError(name, reason);
  }
}

/** The OAuth of an ordinary connection to `server`. */
export function connectionAuth(server: HttpServerConfig, deps: ConnectionAuthDeps): ConnectionAuth {
  const provider = new ConnectionProvider(server, deps);
  return {
    authProvider: provider,
    wrapFetch: (base) =>
      authFetch(base, {
        ...sharedHooks(server),
        onInsufficientScope: (scope) => provider.stepUp(scope),
        onRejected: async (token) =>
          (await refreshTokens(server, deps, { rejected: token }))?.access_token ?? null,
      }),
  };
}

/** The hooks every OAuth connection shares: the metadata-origin check, the headers kept home. */
export function sharedHooks(
  server: HttpServerConfig,
): Pick<AuthFetchHooks, "serverUrl" | "staticHeaders" | "checkResourceMetadataUrl"> {
  return {
    serverUrl: new URL(server.url),
    staticHeaders: Object.keys(server.headers).map((h) => h.toLowerCase()),
    checkResourceMetadataUrl: (url) => checkResourceMetadataUrl(server, url),
  };
}

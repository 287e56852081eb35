/**
 * @module engram as an OAuth client of remote upstreams (docs/upstream.md#oauth-upstreams): the one
 * object the composition root builds and every caller uses. Connections get their OAuth from
 * `connectionAuth` (kept tokens, refreshed under the lease, `needs login` when a person is
 * needed); `login` runs the interactive login with a callback for the URL to show; `authState`
 * says where a server's login stands without connecting; `logout` forgets what is kept.
 *
 * For `engram mcp doctor` and `engram mcp review`: `new UpstreamOAuth(deps)`, then
 * `authState(server)` (or `authStates`) and `login(server, limits, { onAuthorizationUrl })`.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import type { HttpServerConfig, McpServerConfig } from "../../../config/mcp_servers.ts";
import type { SecretKeySource } from "../../../config/secret_key.ts";
import type { UpstreamCredentialStore } from "../../../core/ports/upstream_credentials.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import { authStateOf, type UpstreamAuthState } from "./auth_state.ts";
import {
  type ConnectionAuth,
  connectionAuth,
  type ConnectionAuthSource,
} from "./connection_auth.ts";
import { CredentialVault } from "./credential_vault.ts";
import { type LoginOptions, type LoginResult, loginUpstream } from "./login_flow.ts";

/** What engram's OAuth client is built from. */
export interface UpstreamOAuthDeps {
  store: UpstreamCredentialStore;
  /** The secret key that seals tokens (src/config/secret_key.ts). */
  keys: SecretKeySource;
  /** engram's environment: a pre-registered client's `${VAR}` secret is read from it. */
  env: EnvSnapshot;
  /** The clock expiries follow; default the real one. */
  now?: () => Date;
  /** The fetch under every OAuth request; default the global fetch. */
  fetch?: FetchLike;
  /** Told when another process holds a server's refresh lease and this one waits. */
  onLeaseBusy?: (server: string) => void;
}

/** The limits a login connects within (from the `mcp:` config section). */
export interface LoginLimits {
  /** `mcp.max_result_bytes`. */
  maxMessageBytes: number;
  /** `mcp.request_timeout_ms`: each connection attempt's bound. */
  requestTimeoutMs: number;
}

/** engram's OAuth client. */
export class UpstreamOAuth implements ConnectionAuthSource {
  /** The sealed credentials (for tests and maintenance; callers need not touch it). */
  readonly vault: CredentialVault;
  readonly #deps: UpstreamOAuthDeps;

  constructor(deps: UpstreamOAuthDeps) {
    this.#deps = deps;
    this.vault = new CredentialVault({
      store: deps.store,
      keys: deps.keys,
      now: deps.now ?? (() => new Date()),
    });
  }

  /**
   * Whether engram speaks OAuth to `server`: a remote server whose entry sends no Authorization
   * header of its own (one that does keeps using it).
   */
  static applies(server: McpServerConfig): server is HttpServerConfig {
    return server.transport !== "stdio" &&
      !Object.keys(server.headers).some((h) => h.toLowerCase() === "authorization");
  }

  /** The OAuth of one connection to `server`; null when it does not use OAuth. */
  connectionAuth(server: HttpServerConfig): ConnectionAuth | null {
    if (!UpstreamOAuth.applies(server)) return null;
    return connectionAuth(server, {
      vault: this.vault,
      env: this.#deps.env,
      ...(this.#deps.fetch ? { fetch: this.#deps.fetch } : {}),
      ...(this.#deps.onLeaseBusy ? { onLeaseBusy: this.#deps.onLeaseBusy } : {}),
    });
  }

  /** Where `server`'s login stands, from the database alone. */
  async authState(server: HttpServerConfig): Promise<UpstreamAuthState> {
    return (await this.authStates([server]))[0];
  }

  /** The state of each remote server of `servers` (stdio servers are left out). */
  async authStates(servers: readonly McpServerConfig[]): Promise<UpstreamAuthState[]> {
    const remote = servers.filter((s): s is HttpServerConfig => s.transport !== "stdio");
    let keyId: string | null = null;
    let keyProblem: string | null = null;
    try {
      keyId = await this.vault.currentKeyId();
    } catch (error) {
      keyProblem = (error as Error).message;
    }
    const now = this.vault.now();
    return await Promise.all(remote.map(async (server) => {
      const row = await this.vault.row(server.name);
      const state = authStateOf(server, row, { now, keyId });
      if (keyProblem && row?.tokens && state.state !== "static_headers") {
        return { ...state, state: "needs_login" as const, detail: keyProblem };
      }
      return state;
    }));
  }

  /**
   * Logs in to `server`: `options.onAuthorizationUrl` is told each URL to open (engram opens no
   * browser), and the login waits for the browser on a loopback port.
   */
  login(
    server: HttpServerConfig,
    limits: LoginLimits,
    options: LoginOptions,
  ): Promise<LoginResult> {
    return loginUpstream(server, {
      vault: this.vault,
      env: this.#deps.env,
      maxMessageBytes: limits.maxMessageBytes,
      requestTimeoutMs: limits.requestTimeoutMs,
      ...(this.#deps.fetch ? { fetch: this.#deps.fetch } : {}),
    }, options);
  }

  /** Forgets the tokens and client registration kept for `server`; false when none were. */
  logout(server: string): Promise<boolean> {
    return this.vault.forget(server);
  }
}

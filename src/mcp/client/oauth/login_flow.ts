/**
 * @module Logging in to an upstream (docs/upstream.md#logging-in): `engram mcp auth login NAME`.
 * engram connects as any client would; when the server answers 401 the SDK discovers its
 * authorization server and registers, and the authorization URL is handed to the caller to show
 * (engram launches no browser). The browser comes back to a loopback listener; the `state` is
 * checked, the SDK exchanges the code (PKCE, `resource`), and the tokens are kept sealed. engram
 * then lists what the server offers, so a step-up (403 `insufficient_scope`) shows now: it asks
 * again for the wider scope, at most three authorizations in all. A server that answers without
 * any of this needs no login.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import { VERSION } from "../../../version.ts";
import { Client } from "../../sdk_client.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import { closeHttpTransport, httpClientTransport } from "../transport/http_transport.ts";
import { expandValues } from "../launch/launch_env.ts";
import { errorText } from "../session/upstream_errors.ts";
import { authFetch } from "./auth_fetch.ts";
import { listenForCallback } from "./callback_listener.ts";
import { configuredClient } from "./client_identity.ts";
import { sharedHooks } from "./connection_auth.ts";
import type { CredentialVault } from "./credential_vault.ts";
import { LoginProvider } from "./login_provider.ts";
import { upstreamWords } from "./oauth_errors.ts";

/** How long a login waits for the browser to come back, by default. */
export const DEFAULT_LOGIN_WAIT_MS = 600_000;

/** What a login needs. */
export interface LoginDeps {
  vault: CredentialVault;
  env: EnvSnapshot;
  /** `mcp.max_result_bytes`. */
  maxMessageBytes: number;
  /** Bound on each connection attempt (`mcp.request_timeout_ms`). */
  requestTimeoutMs: number;
  /** The fetch under the transport; default the global fetch. */
  fetch?: FetchLike;
}

/** How a login talks to the person. */
export interface LoginOptions {
  /** Shows an authorization URL to open in a browser, and where the browser will come back. */
  onAuthorizationUrl(url: string, redirectUrl: string): void | Promise<void>;
  /** How long to wait for each callback; default 10 minutes. */
  waitMs?: number;
  /** Stops the login (Ctrl-C). */
  signal?: AbortSignal;
}

/** How a login ended. */
export interface LoginResult {
  server: string;
  /** `no_auth_needed`: the server answered without asking for a login; nothing was kept. */
  status: "logged_in" | "no_auth_needed";
  /** How many authorization URLs the person was shown. */
  authorizations: number;
  /** When the access token expires; null when the server did not say. */
  expires_at: string | null;
  scope: string | null;
  /** Whether engram can refresh the tokens without the person. */
  refreshable: boolean;
}

/** Logs in to `server`, interactively through `options.onAuthorizationUrl`. */
export async function loginUpstream(
  server: HttpServerConfig,
  deps: LoginDeps,
  options: LoginOptions,
): Promise<LoginResult> {
  checkLoginPossible(server, deps.env);
  await using listener = await listenForCallback(server.name, server.oauth?.redirect_port ?? 0);
  const before = await deps.vault.row(server.name);
  const provider = new LoginProvider(server, {
    vault: deps.vault,
    env: deps.env,
    redirectUrl: listener.redirectUrl,
    requiredScope: before?.required_scope ?? null,
    onAuthorizationUrl: (url) => options.onAuthorizationUrl(url.href, listener.redirectUrl),
  });
  const auth = {
    authProvider: provider,
    wrapFetch: (base: FetchLike) =>
      authFetch(base, {
        ...sharedHooks(server),
        onInsufficientScope: (scope: string | undefined) => provider.stepUp(scope),
        // A token of this login refused: the SDK authorizes again; there is nothing to refresh.
        onRejected: () => Promise.resolve(null),
      }),
  };
  for (;;) {
    options.signal?.throwIfAborted();
    const transport = httpClientTransport(server, {
      env: deps.env,
      maxMessageBytes: deps.maxMessageBytes,
      fetch: deps.fetch,
      auth,
    });
    const client = new Client({ name: "engram", version: VERSION }, { capabilities: {} });
    client.onerror = () => {};
    try {
      await client.connect(transport, { timeout: deps.requestTimeoutMs, signal: options.signal });
      await listEverything(client, { timeout: deps.requestTimeoutMs, signal: options.signal });
      break;
    } catch (error) {
      const pending = provider.takePending();
      if (pending === null) throw loginError(server.name, error);
      const code = await listener.next(pending.state, {
        timeoutMs: options.waitMs ?? DEFAULT_LOGIN_WAIT_MS,
        signal: options.signal,
      });
      await transport.finishAuth(code).catch((e) => {
        throw loginError(server.name, e);
      });
    } finally {
      await closeHttpTransport(transport).catch(() => {});
      await client.close().catch(() => {});
    }
  }
  if (provider.authorizations === 0) {
    return {
      server: server.name,
      status: "no_auth_needed",
      authorizations: 0,
      expires_at: null,
      scope: null,
      refreshable: false,
    };
  }
  await deps.vault.store.updateCredentials(server.name, { required_scope: null });
  const row = (await deps.vault.row(server.name))!;
  return {
    server: server.name,
    status: "logged_in",
    authorizations: provider.authorizations,
    expires_at: row.expires_at,
    scope: row.scope,
    refreshable: row.refreshable,
  };
}

/** Refuses, before anything is sent, a login that cannot work for `server` as configured. */
function checkLoginPossible(server: HttpServerConfig, env: EnvSnapshot): void {
  const who = `upstream ${JSON.stringify(server.name)}`;
  if (Object.keys(server.headers).some((h) => h.toLowerCase() === "authorization")) {
    throw new EngramError(
      "invalid_argument",
      `${who} sends a static Authorization header from its config entry, so engram does not log in to it with OAuth; remove that header to log in`,
    );
  }
  const missing = expandValues(server.headers, env).missing[0];
  if (missing) {
    throw new EngramError(
      "invalid_argument",
      `${who}: headers ${missing.key} refers to \${${missing.variable}}, which is not set; export it in engram's environment`,
    );
  }
  configuredClient(server, env);
}

/** Lists the tools, prompts and resources the server declared: where a step-up would show. */
async function listEverything(
  client: Client,
  options: { timeout: number; signal?: AbortSignal },
): Promise<void> {
  const caps = client.getServerCapabilities() ?? {};
  if (caps.tools) await client.listTools(undefined, options);
  if (caps.prompts) await client.listPrompts(undefined, options);
  if (caps.resources) await client.listResources(undefined, options);
}

/** A failed login as one EngramError: engram's own errors as they are, the rest named. */
function loginError(server: string, error: unknown): EngramError {
  if (error instanceof EngramError) return error;
  return new EngramError(
    "provider_unavailable",
    `upstream ${JSON.stringify(server)}: the login failed: ${
      upstreamWords(errorText(error), 300)
    }; check the server with: engram mcp doctor ${server}`,
    { cause: error },
  );
}

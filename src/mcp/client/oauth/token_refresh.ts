/**
 * @module Refreshing an upstream's tokens (docs/upstream.md#refresh): before the access token
 * expires, or when the server refused it, one process at a time — under the server's refresh
 * lease in the database — spends the refresh token, so two processes sharing a rotating refresh
 * token never both use it (a server that detects reuse would revoke the whole login). A process
 * that finds the lease taken waits for its holder and uses what it stored. A refresh the
 * authorization server refuses marks the server `needs_login`; one it could not answer (down,
 * 5xx) marks it `refresh_failing` and keeps the tokens for the next try. The request itself is
 * the SDK's `refreshAuthorization` (client authentication as the server advertises it, `resource`).
 */
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import type { UpstreamCredentials } from "../../../core/ports/upstream_credentials.ts";
import { OAuthError, type OAuthTokens, refreshAuthorization } from "../../sdk_client.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import { errorText } from "../session/upstream_errors.ts";
import { configuredClient } from "./client_identity.ts";
import type { CredentialVault } from "./credential_vault.ts";
import { loginCommand, upstreamWords } from "./oauth_errors.ts";
import type { EnvSnapshot } from "../../../config/env.ts";

/** How long a refresh may hold the lease; longer than the refresh request may take. */
const LEASE_MS = 60_000;
/** How long the refresh request may take. */
const REFRESH_TIMEOUT_MS = 30_000;
/** How often a process waiting for another's refresh looks at the row again. */
const POLL_MS = 100;
/** How long before expiry a token is refreshed. */
export const REFRESH_MARGIN_MS = 60_000;

/** OAuth errors that say the authorization server could not answer now, not that it refused. */
const TRANSIENT = new Set(["server_error", "temporarily_unavailable"]);

/** `text` with each secret replaced: an error body might echo what was sent. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.replaceAll(s, "[redacted]");
  return out;
}

/** What a refresh needs. */
export interface RefreshDeps {
  vault: CredentialVault;
  env: EnvSnapshot;
  /** The fetch the token request goes through; default the global fetch. */
  fetch?: FetchLike;
  /** Told when another holder has the lease and this process waits for it. */
  onLeaseBusy?: (server: string) => void;
}

/** Whether a row's access token expires within the margin (never, when its expiry is unknown). */
export function expiresSoon(row: UpstreamCredentials, now: Date): boolean {
  return row.expires_at !== null &&
    Date.parse(row.expires_at) - now.getTime() <= REFRESH_MARGIN_MS;
}

/**
 * Fresh tokens for `server`: refreshed under the lease when the stored ones expire soon or are
 * the `rejected` access token, else the stored ones (another process refreshed them meanwhile).
 * Null when there is nothing to refresh with, or the authorization server refused (the server is
 * then marked `needs_login`); a refresh that could not be answered throws `provider_unavailable`.
 */
export function refreshTokens(
  server: HttpServerConfig,
  deps: RefreshDeps,
  options: { rejected?: string } = {},
): Promise<OAuthTokens | null> {
  const key = `${server.name.toLowerCase()}\n${options.rejected ?? ""}`;
  return deps.vault.once(key, () => refreshLeased(server, deps, options));
}

async function refreshLeased(
  server: HttpServerConfig,
  deps: RefreshDeps,
  options: { rejected?: string },
): Promise<OAuthTokens | null> {
  const { vault } = deps;
  const holder = crypto.randomUUID();
  const deadline = vault.now().getTime() + LEASE_MS + REFRESH_TIMEOUT_MS;
  let told = false;
  for (;;) {
    if (await vault.store.acquireRefreshLease(server.name, holder, LEASE_MS)) break;
    const row = await vault.row(server.name);
    if (row === null || row.tokens === null) return null;
    if (!told) deps.onLeaseBusy?.(server.name);
    told = true;
    if (vault.now().getTime() > deadline) {
      throw new EngramError(
        "busy",
        `upstream ${
          JSON.stringify(server.name)
        }: another engram process has been refreshing its tokens for too long; try again`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await refreshHolding(server, deps, { holder, rejected: options.rejected });
  } finally {
    await vault.store.releaseRefreshLease(server.name, holder).catch(() => {});
  }
}

async function refreshHolding(
  server: HttpServerConfig,
  deps: RefreshDeps,
  o: { holder: string; rejected?: string },
): Promise<OAuthTokens | null> {
  const { vault } = deps;
  const row = await vault.row(server.name);
  if (row === null || row.tokens === null) return null;
  const tokens = (await vault.tokens(row))!;
  const stale = o.rejected === undefined
    ? expiresSoon(row, vault.now())
    : tokens.access_token === o.rejected;
  // Someone refreshed while this process waited: theirs are the tokens to use.
  if (!stale) return tokens;
  const discovery = vault.discovery(row);
  if (!tokens.refresh_token || !discovery) {
    const why = o.rejected === undefined
      ? "its access token expired and there is no refresh token"
      : "the server refused its access token and there is no refresh token";
    await vault.markNeedsLogin(server.name, why, { dropTokens: true });
    return null;
  }
  const clientInformation = configuredClient(server, deps.env) ?? await vault.client(row);
  if (!clientInformation) {
    await vault.markNeedsLogin(server.name, "no client registration is kept", {
      dropTokens: true,
    });
    return null;
  }
  const base = deps.fetch ?? fetch;
  let fresh: OAuthTokens;
  try {
    fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
      metadata: discovery.authorizationServerMetadata,
      clientInformation,
      refreshToken: tokens.refresh_token,
      resource: discovery.resourceMetadata?.resource,
      fetchFn: (url, init) =>
        base(url, { ...init, signal: AbortSignal.timeout(REFRESH_TIMEOUT_MS) }),
    });
  } catch (error) {
    const secrets = [tokens.refresh_token, tokens.access_token];
    if (error instanceof OAuthError && !TRANSIENT.has(error.errorCode)) {
      const said = error.message ? `: ${upstreamWords(redact(error.message, secrets))}` : "";
      await vault.markNeedsLogin(
        server.name,
        `the authorization server refused the refresh (${error.errorCode}${said})`,
        { dropTokens: true },
      );
      return null;
    }
    const why = `refreshing failed: ${upstreamWords(redact(errorText(error), secrets), 200)}`;
    await vault.markRefreshFailing(server.name, why);
    throw new EngramError(
      "provider_unavailable",
      `upstream ${
        JSON.stringify(server.name)
      }: ${why}; engram tries again on the next call, or log in again with: ${
        loginCommand(server.name)
      }`,
      { cause: error },
    );
  }
  const stamped = { ...fresh, ...(tokens.issuer ? { issuer: tokens.issuer } : {}) };
  const saved = await vault.saveTokens(server.name, stamped, {
    refreshed: true,
    leaseHolder: o.holder,
    previousRefresh: tokens.refresh_token,
  });
  if (!saved) {
    throw new EngramError(
      "busy",
      `upstream ${
        JSON.stringify(server.name)
      }: the refresh took longer than its lease, and another process took over; try again`,
    );
  }
  return stamped;
}

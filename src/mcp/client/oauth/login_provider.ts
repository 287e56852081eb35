/**
 * @module The SDK's `OAuthClientProvider` for one run of `engram mcp auth login NAME`
 * (docs/upstream.md#logging-in): the SDK discovers, registers, builds the authorization URL with
 * PKCE S256, `state` and `resource`, and exchanges the code; this provider checks what discovery
 * found (oauth_guards.ts) before anything else is sent, keeps the client registration and the new
 * tokens in the vault, hands the authorization URL to the caller (engram never opens a browser),
 * and asks for the scope a step-up needs on top of what the server asks now. Tokens of an earlier
 * login stay usable until the new ones replace them.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import type { HttpServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import { randomSecret } from "../../../core/hash.ts";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "../../sdk_client.ts";
import { clientMetadata, configuredClient, unionScopes } from "./client_identity.ts";
import type { CredentialVault } from "./credential_vault.ts";
import { checkDiscovery } from "./oauth_guards.ts";

/** The most authorizations one login asks a person for (the first and two step-ups). */
export const MAX_AUTHORIZATIONS = 3;

/** What a login's provider needs. */
export interface LoginProviderDeps {
  vault: CredentialVault;
  env: EnvSnapshot;
  /** The loopback redirect URI the callback listener answers. */
  redirectUrl: string;
  /** A scope an earlier step-up asked for (kept in the vault), requested as well. */
  requiredScope: string | null;
  /** Told each authorization URL; the person opens it in a browser. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
}

/** An authorization URL handed out and not yet answered. */
export interface PendingAuthorization {
  state: string;
  url: URL;
}

/** The provider of one login. */
export class LoginProvider implements OAuthClientProvider {
  readonly #server: HttpServerConfig;
  readonly #deps: LoginProviderDeps;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #pending: PendingAuthorization | null = null;
  /** The scope a 403 asked for during this login, if one did. */
  #stepUp: string | null = null;
  /** The scope the last authorization asked for. */
  #lastScope: string | null = null;
  /** How many authorization URLs this login handed out. */
  authorizations = 0;

  constructor(server: HttpServerConfig, deps: LoginProviderDeps) {
    this.#server = server;
    this.#deps = deps;
  }

  get redirectUrl(): string {
    return this.#deps.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#server.oauth?.client_id_metadata_document_url;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(
      this.#server,
      this.#deps.redirectUrl,
      this.#discovery?.authorizationServerMetadata,
    );
  }

  /** The server asked for `scope` with a 403 `insufficient_scope`. */
  stepUp(scope: string | undefined): void {
    this.#stepUp = scope ?? "";
  }

  /** The authorization URL handed out since the last call, if any; clears it. */
  takePending(): PendingAuthorization | null {
    const pending = this.#pending;
    this.#pending = null;
    return pending;
  }

  state(): string {
    return randomSecret();
  }

  /**
   * The pre-registered client of the config entry, else the kept registration — unless it was
   * registered for another redirect URI (an earlier login's ephemeral port), or is a metadata
   * document the entry no longer names: then none, and the SDK registers again.
   */
  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const configured = configuredClient(this.#server, this.#deps.env);
    if (configured) return configured;
    const row = await this.#deps.vault.row(this.#server.name);
    const kept = row ? await this.#deps.vault.client(row).catch(() => null) : null;
    if (!kept) return undefined;
    // A metadata-document client ID the entry no longer names is not used either.
    if (row?.client_kind === "metadata_document" && kept.client_id !== this.clientMetadataUrl) {
      return undefined;
    }
    const uris = (kept as { redirect_uris?: unknown }).redirect_uris;
    if (Array.isArray(uris) && !uris.includes(this.#deps.redirectUrl)) return undefined;
    return kept;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (configuredClient(this.#server, this.#deps.env)) return;
    const kind = info.client_id === this.clientMetadataUrl ? "metadata_document" : "dynamic";
    await this.#deps.vault.saveClient(this.#server.name, info, kind);
  }

  /** Only the tokens of this login, without the refresh token (the SDK never refreshes). */
  tokens(): OAuthTokens | undefined {
    const t = this.#tokens;
    return t ? { access_token: t.access_token, token_type: t.token_type } : undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#tokens = tokens;
    await this.#deps.vault.saveTokens(this.#server.name, tokens);
  }

  /**
   * Hands the authorization URL out, asking also for the scope a step-up needs, the entry's
   * `scopes`, and `offline_access` where the authorization server lists it. A step-up that would ask for no more than the last authorization did is refused:
   * logging in again cannot help, and repeating it would loop.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    // A refresh token lets engram keep the login without the person: asked for where offered.
    const offline = this.#discovery?.authorizationServerMetadata?.scopes_supported
        ?.includes("offline_access")
      ? "offline_access"
      : null;
    const scope = unionScopes(
      url.searchParams.get("scope"),
      this.#deps.requiredScope,
      this.#stepUp,
      this.#server.oauth?.scopes?.join(" "),
      offline,
    );
    if (scope) url.searchParams.set("scope", scope);
    // OpenID Connect grants offline access only on a consent prompt (the SDK's rule, kept).
    if (offline && !url.searchParams.has("prompt")) url.searchParams.set("prompt", "consent");
    if (this.#stepUp !== null && this.#lastScope !== null && covers(this.#lastScope, scope)) {
      throw new EngramError(
        "forbidden",
        `upstream ${JSON.stringify(this.#server.name)} still refuses for insufficient scope (${
          this.#stepUp || "unnamed"
        }) although the last authorization asked for ${
          this.#lastScope || "no scope"
        }; logging in again will not help: ask its operator`,
      );
    }
    if (this.authorizations >= MAX_AUTHORIZATIONS) {
      throw new EngramError(
        "forbidden",
        `upstream ${
          JSON.stringify(this.#server.name)
        } asked for ${MAX_AUTHORIZATIONS} authorizations in one login and still refuses; engram stops here`,
      );
    }
    this.authorizations++;
    this.#lastScope = scope ?? "";
    this.#stepUp = null;
    this.#pending = { state: url.searchParams.get("state") ?? "", url };
    await this.#deps.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) {
      throw new EngramError("internal", "no PKCE code verifier: no authorization was started");
    }
    return this.#verifier;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "all" || scope === "client") {
      await this.#deps.vault.forgetClient(this.#server.name);
    }
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
  }

  /** Checks what discovery found, then keeps it (the refresh needs it later). */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    checkDiscovery(this.#server, state);
    this.#discovery = state;
    await this.#deps.vault.saveDiscovery(this.#server.name, state);
  }

  /** Nothing cached: each authorization of a login discovers afresh, and is checked afresh. */
  discoveryState(): undefined {
    return undefined;
  }
}

/** Whether scope list `had` holds every scope of `wanted`. */
function covers(had: string, wanted: string | null): boolean {
  const held = new Set(had.split(" "));
  return (wanted ?? "").split(" ").filter(Boolean).every((s) => held.has(s));
}

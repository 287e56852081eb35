/**
 * @module engram's OAuth 2.1 authorization server, as the HTTP endpoints use it (docs/connectors.md):
 * registration (RFC 7591) and client-ID metadata documents, the checks of an /authorize request,
 * the consent's proof (an engram token or a pairing code), single-use codes, and the token
 * endpoint (token_endpoint.ts). Access tokens are engram tokens bound to this server's `/mcp`.
 */
import { TokenService } from "../bearer_tokens.ts";
import { EngramError } from "../errors.ts";
import { ulid } from "../ids.ts";
import type { BrainStore } from "../ports/brain_store.ts";
import type { OAuthStore, StoredOAuthClient } from "../ports/oauth_store.ts";
import type { TokenStore } from "../ports/token_store.ts";
import type { UnitOfWork } from "../ports/unit_of_work.ts";
import { tierAllows } from "../types.ts";
import {
  type AuthorizationRequest,
  type AuthorizationServer,
  type AuthorizationSettings,
  type ConsentGrant,
  type FetchClientMetadata,
  type OAuthClient,
  OAuthError,
  type TokenRequest,
  type TokenResponse,
} from "./authorization_types.ts";
import {
  isMetadataDocumentId,
  metadataDocumentUrlProblem,
  parseMetadataDocument,
  parseRegistration,
  redirectUriRegistered,
} from "./client_registration.ts";
import { hashSecret, mintSecret } from "./oauth_secrets.ts";
import { PairingCodes } from "./pairing_codes.ts";
import { isS256Challenge } from "./pkce.ts";
import { requestedTier } from "./scopes.ts";
import { TokenEndpoint } from "./token_endpoint.ts";

/** The storage ports the authorization server works on. */
export interface AuthorizationPorts {
  oauth: OAuthStore;
  tokens: TokenStore;
  brains: Pick<BrainStore, "findBrain">;
  units: UnitOfWork;
}

/** Options of the authorization server. */
export interface AuthorizationServerOptions {
  settings: AuthorizationSettings;
  /** Fetches client-ID metadata documents; without it, only registered clients are known. */
  fetchClientMetadata?: FetchClientMetadata;
  /** The clock every stored time and expiry follows. */
  now?: () => Date;
}

/** Default lifetime of an authorization code. */
export const CODE_TTL_MS = 60_000;

/** How long a fetched metadata document is used before it is fetched again. */
export const METADATA_DOCUMENT_TTL_MS = 5 * 60_000;

/** At most this many clients are kept: registration is open, so its storage is bounded. */
export const MAX_CLIENTS = 10_000;

/** What is dead is purged at most this often. */
const PURGE_INTERVAL_MS = 60_000;

/** Codes are kept this long after they expire, so a late second use still revokes its tokens. */
const CODE_KEEP_MS = 60 * 60_000;

/** engram's authorization server over its storage ports. */
export class EngramAuthorizationServer implements AuthorizationServer {
  readonly #ports: AuthorizationPorts;
  readonly #settings: AuthorizationSettings;
  readonly #fetch?: FetchClientMetadata;
  readonly #now: () => Date;
  readonly #tokens: TokenService;
  readonly #pairing: PairingCodes;
  readonly #endpoint: TokenEndpoint;
  #lastPurge = Number.NEGATIVE_INFINITY;

  /** `ports` from the storage; `options.settings` from `server.public_url` and `server.oauth`. */
  constructor(ports: AuthorizationPorts, options: AuthorizationServerOptions) {
    this.#ports = ports;
    this.#settings = options.settings;
    this.#fetch = options.fetchClientMetadata;
    this.#now = options.now ?? (() => new Date());
    this.#tokens = new TokenService(ports, { now: this.#now });
    this.#pairing = new PairingCodes(ports, { now: this.#now });
    this.#endpoint = new TokenEndpoint(ports, {
      settings: options.settings,
      now: this.#now,
      findClient: (id) => this.#storedClient(id),
    });
  }

  /** This server's resource: the `/mcp` URL tokens are bound to. */
  get resource(): string {
    return `${this.#settings.issuer}/mcp`;
  }

  async register(
    metadata: unknown,
    _options: { remote: string },
  ): Promise<{ client: OAuthClient; client_secret?: string; client_id_issued_at: number }> {
    await this.#purge();
    const parsed = parseRegistration(metadata);
    if (await this.#ports.oauth.countClients() >= MAX_CLIENTS) {
      throw new OAuthError(
        "temporarily_unavailable",
        `engram holds ${MAX_CLIENTS} client registrations already; remove unused ones with: engram tokens clients remove CLIENT_ID`,
        { status: 503 },
      );
    }
    const now = this.#now();
    const secret = parsed.token_endpoint_auth_method === "none"
      ? undefined
      : mintSecret("clientSecret");
    const client: StoredOAuthClient = {
      client_id: `oac_${ulid(now.getTime())}`,
      ...parsed,
      kind: "registered",
      created_at: now.toISOString(),
      last_used_at: null,
      secret_hash: secret === undefined ? null : hashSecret(secret),
      fetched_at: null,
    };
    await this.#ports.oauth.insertClient(client);
    return {
      client: publicView(client),
      ...(secret === undefined ? {} : { client_secret: secret }),
      client_id_issued_at: Math.floor(now.getTime() / 1000),
    };
  }

  async checkAuthorization(request: AuthorizationRequest): Promise<OAuthClient> {
    await this.#purge();
    const client = await this.#authorizingClient(request.client_id);
    if (!redirectUriRegistered(client.redirect_uris, request.redirect_uri)) {
      throw new OAuthError(
        "invalid_request",
        `redirect_uri ${
          JSON.stringify(request.redirect_uri)
        } is not registered for client ${client.client_id}`,
        { status: 400 },
      );
    }
    const refuse = (error: "invalid_request" | "invalid_target", message: string) =>
      new OAuthError(error, message, { status: 400, redirectable: true });
    if (request.code_challenge_method !== "S256") {
      throw refuse("invalid_request", "code_challenge_method must be S256");
    }
    if (!isS256Challenge(request.code_challenge)) {
      throw refuse("invalid_request", "code_challenge must be 43 base64url characters (S256)");
    }
    if (!request.state) throw refuse("invalid_request", "state is required");
    if (request.resource !== this.resource) {
      throw refuse(
        "invalid_target",
        `resource must be this server's ${this.resource}, not ${JSON.stringify(request.resource)}`,
      );
    }
    await this.#ports.oauth.touchClient(client.client_id, this.#now().toISOString());
    return publicView(client);
  }

  async proveIdentity(proof: string): Promise<ConsentGrant | null> {
    const text = proof.trim();
    if (text.startsWith("egt_")) {
      // Without an audience, only tokens bound to none verify: an OAuth access token is no proof.
      const grant = await this.#tokens.verify(text);
      if (!grant) return null;
      return {
        tier: grant.tier,
        brains: grant.brains,
        proofId: grant.tokenId,
        ...(grant.tools ? { tools: grant.tools } : {}),
      };
    }
    const pairing = await this.#pairing.consume(text);
    return pairing ? { tier: pairing.tier, brains: pairing.brains, proofId: pairing.id } : null;
  }

  async issueCode(request: AuthorizationRequest, grant: ConsentGrant): Promise<string> {
    // The consent form posts every field back: they are checked again, not trusted.
    const client = await this.checkAuthorization(request);
    const wanted = requestedTier(request.scope);
    if (wanted !== null && !tierAllows(grant.tier, wanted)) {
      throw new OAuthError(
        "invalid_scope",
        `the client asks for tier ${wanted}, more than the proof allows (${grant.tier})`,
        { status: 400, redirectable: true },
      );
    }
    const now = this.#now();
    const code = mintSecret("code");
    await this.#ports.oauth.insertCode({
      code_hash: hashSecret(code),
      client_id: client.client_id,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      resource: request.resource,
      tier: wanted ?? grant.tier,
      brains: grant.brains,
      tools: grant.tools ?? null,
      proof_id: grant.proofId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + (this.#settings.codeTtlMs ?? CODE_TTL_MS))
        .toISOString(),
      used_at: null,
      grant_id: null,
    });
    return code;
  }

  async token(request: TokenRequest): Promise<TokenResponse> {
    await this.#purge();
    return await this.#endpoint.token(request);
  }

  /** The client of an /authorize request: registered, or its metadata document (re)fetched. */
  async #authorizingClient(clientId: string): Promise<StoredOAuthClient> {
    if (!isMetadataDocumentId(clientId)) {
      const client = await this.#storedClient(clientId);
      if (client) return client;
      throw new OAuthError(
        "invalid_client",
        `client ${
          JSON.stringify(clientId)
        } is not registered (or its registration expired unused); register it again`,
        { status: 400 },
      );
    }
    const problem = metadataDocumentUrlProblem(clientId);
    if (problem) {
      throw new OAuthError("invalid_client", `client_id ${JSON.stringify(clientId)} ${problem}`, {
        status: 400,
      });
    }
    const now = this.#now();
    const stored = await this.#ports.oauth.findClient(clientId);
    if (
      stored?.fetched_at &&
      now.getTime() - Date.parse(stored.fetched_at) < METADATA_DOCUMENT_TTL_MS
    ) return stored;
    if (!this.#fetch) {
      throw new OAuthError(
        "invalid_client",
        "client-ID metadata documents are not accepted by this server; register the client",
        { status: 400 },
      );
    }
    let document: unknown;
    try {
      document = await this.#fetch(clientId);
    } catch (err) {
      throw new OAuthError(
        "invalid_client",
        `could not fetch the client metadata document ${clientId}: ${
          err instanceof Error ? err.message : String(err)
        }`,
        { status: 400 },
      );
    }
    const parsed = parseMetadataDocument(clientId, document);
    const client: StoredOAuthClient = {
      client_id: clientId,
      ...parsed,
      kind: "metadata_document",
      created_at: stored?.created_at ?? now.toISOString(),
      last_used_at: stored?.last_used_at ?? null,
      secret_hash: null,
      fetched_at: now.toISOString(),
    };
    await this.#ports.oauth.saveMetadataClient(client);
    return client;
  }

  /** A stored client that has not expired unused, or null. */
  async #storedClient(clientId: string): Promise<StoredOAuthClient | null> {
    const client = await this.#ports.oauth.findClient(clientId);
    if (!client) return null;
    const lastUse = Date.parse(client.last_used_at ?? client.created_at);
    return this.#now().getTime() - lastUse > this.#settings.registrationTtlMs ? null : client;
  }

  /** Removes what is dead (at most once a minute): unused clients, expired codes and tokens. */
  async #purge(): Promise<void> {
    const now = this.#now().getTime();
    if (now - this.#lastPurge < PURGE_INTERVAL_MS) return;
    this.#lastPurge = now;
    try {
      await this.#ports.oauth.purge({
        now: new Date(now).toISOString(),
        clientsUnusedBefore: new Date(now - this.#settings.registrationTtlMs).toISOString(),
        codesExpiredBefore: new Date(now - CODE_KEEP_MS).toISOString(),
      });
    } catch (err) {
      // Purging is housekeeping: a writer holding the database must not fail the request.
      if (!(err instanceof EngramError && err.code === "busy")) throw err;
    }
  }
}

/** A client as the endpoints see it: no secret hash. */
export function publicView(client: StoredOAuthClient): OAuthClient {
  const { secret_hash: _s, fetched_at: _f, ...view } = client;
  return view;
}

/**
 * @module The token endpoint (RFC 6749 §3.2, OAuth 2.1): a client authenticated as it registered;
 * a code exchanged once, with its PKCE verifier and redirect URI; a refresh token used once and
 * rotated, whose second use revokes its whole grant (docs/connectors.md). A refusal that must
 * stick (a code or refresh token spent by a bad attempt, a grant revoked) is committed before it
 * is thrown; one that must not (a scope asked too wide) rolls back.
 */
import { displayPrefix, mintToken } from "../bearer_tokens.ts";
import { ulid } from "../ids.ts";
import { newId } from "../ids.ts";
import type { OAuthGrantRecord, OAuthStore, StoredOAuthClient } from "../ports/oauth_store.ts";
import type { RefreshTokenRecord } from "../ports/oauth_store.ts";
import type { StoredToken, TokenStore } from "../ports/token_store.ts";
import type { UnitOfWork } from "../ports/unit_of_work.ts";
import { type Tier, tierAllows } from "../types.ts";
import {
  type AuthorizationSettings,
  OAuthError,
  type TokenRequest,
  type TokenResponse,
} from "./authorization_types.ts";
import { hashSecret, mintSecret, secretMatches } from "./oauth_secrets.ts";
import { verifyS256 } from "./pkce.ts";
import { requestedTier, scopeOf } from "./scopes.ts";

/** The storage ports the token endpoint works on. */
export interface TokenEndpointPorts {
  oauth: OAuthStore;
  tokens: TokenStore;
  units: UnitOfWork;
}

/** What a grant handler decided, inside its unit of work. */
type Outcome =
  | { response: TokenResponse }
  | { error: OAuthError; revokeGrant?: string };

type CodeRequest = Extract<TokenRequest, { grant_type: "authorization_code" }>;
type RefreshRequest = Extract<TokenRequest, { grant_type: "refresh_token" }>;

/** The token endpoint's logic. */
export class TokenEndpoint {
  readonly #ports: TokenEndpointPorts;
  readonly #settings: AuthorizationSettings;
  readonly #now: () => Date;
  readonly #findClient: (id: string) => Promise<StoredOAuthClient | null>;

  /** `findClient` resolves a live (not expired) client by id. */
  constructor(
    ports: TokenEndpointPorts,
    options: {
      settings: AuthorizationSettings;
      now: () => Date;
      findClient: (id: string) => Promise<StoredOAuthClient | null>;
    },
  ) {
    this.#ports = ports;
    this.#settings = options.settings;
    this.#now = options.now;
    this.#findClient = options.findClient;
  }

  /** Answers a token request, or throws the OAuthError to answer with. */
  async token(request: TokenRequest): Promise<TokenResponse> {
    const client = await this.#authenticate(request);
    const resource = `${this.#settings.issuer}/mcp`;
    if (request.resource !== undefined && request.resource !== resource) {
      throw new OAuthError(
        "invalid_target",
        `resource must be this server's ${resource}, not ${JSON.stringify(request.resource)}`,
        { status: 400 },
      );
    }
    const grantType = (request as { grant_type: string }).grant_type;
    let outcome: Outcome;
    if (request.grant_type === "authorization_code") {
      outcome = await this.#ports.units.withTransaction(() => this.#exchange(client, request));
    } else if (request.grant_type === "refresh_token") {
      outcome = await this.#ports.units.withTransaction(() => this.#refresh(client, request));
    } else {
      throw new OAuthError(
        "unsupported_grant_type",
        `grant_type ${
          JSON.stringify(grantType)
        } is not supported; use authorization_code or refresh_token`,
        { status: 400 },
      );
    }
    const now = this.#now().toISOString();
    if ("response" in outcome) {
      await this.#ports.oauth.touchClient(client.client_id, now);
      return outcome.response;
    }
    if (outcome.revokeGrant !== undefined) {
      await this.#ports.oauth.revokeGrant(outcome.revokeGrant, now);
    }
    throw outcome.error;
  }

  /** The client, authenticated as it registered (`invalid_client`, 401, otherwise). */
  async #authenticate(request: TokenRequest): Promise<StoredOAuthClient> {
    const refuse = (message: string) => new OAuthError("invalid_client", message, { status: 401 });
    const client = await this.#findClient(request.client_id);
    if (!client) {
      throw refuse(
        `client ${
          JSON.stringify(request.client_id)
        } is not registered (or its registration expired unused); register it again`,
      );
    }
    const method = client.token_endpoint_auth_method;
    if (request.auth_method !== undefined && request.auth_method !== method) {
      throw refuse(
        `client ${client.client_id} authenticates with ${method}, not ${request.auth_method}`,
      );
    }
    if (method === "none") {
      if (request.client_secret) {
        throw refuse(`client ${client.client_id} is public (none): it sends no client_secret`);
      }
      return client;
    }
    if (
      !request.client_secret || client.secret_hash === null ||
      !secretMatches(request.client_secret, client.secret_hash)
    ) throw refuse(`client authentication failed for ${client.client_id}`);
    return client;
  }

  async #exchange(client: StoredOAuthClient, request: CodeRequest): Promise<Outcome> {
    const now = this.#now();
    const found = await this.#ports.oauth.consumeCode(
      hashSecret(request.code),
      now.toISOString(),
    );
    if (!found) return invalidGrant("the authorization code is not known; authorize again");
    const code = found.code;
    if (!found.first) {
      return {
        ...invalidGrant(
          "the authorization code was already used; the tokens issued for it are revoked; authorize again",
        ),
        ...(code.grant_id === null ? {} : { revokeGrant: code.grant_id }),
      };
    }
    if (code.client_id !== client.client_id) {
      return invalidGrant("the authorization code was issued to another client");
    }
    if (Date.parse(code.expires_at) <= now.getTime()) {
      return invalidGrant("the authorization code expired; authorize again");
    }
    if (code.redirect_uri !== request.redirect_uri) {
      return invalidGrant("redirect_uri is not the one of the authorization request");
    }
    if (!verifyS256(request.code_verifier, code.code_challenge)) {
      return invalidGrant("code_verifier does not match the code_challenge");
    }
    const grant: OAuthGrantRecord = {
      id: `grt_${ulid(now.getTime())}`,
      client_id: client.client_id,
      resource: code.resource,
      tier: code.tier,
      brains: code.brains,
      tools: code.tools,
      proof_id: code.proof_id,
      created_at: now.toISOString(),
      expires_at: this.#refreshExpiry(now),
      revoked_at: null,
    };
    const access = this.#accessToken(grant, code.tier, now);
    const refresh = this.#refreshToken(grant.id, access.record.id, now);
    await this.#ports.oauth.createGrant({
      grant,
      access: access.record,
      refresh: refresh.record,
      codeHash: code.code_hash,
    });
    return { response: this.#response(access.token, refresh.token, code.tier) };
  }

  async #refresh(client: StoredOAuthClient, request: RefreshRequest): Promise<Outcome> {
    const now = this.#now();
    const used = await this.#ports.oauth.useRefreshToken(
      hashSecret(request.refresh_token),
      now.toISOString(),
    );
    if (!used) return invalidGrant("the refresh token is not known; authorize again");
    const { grant, refresh } = used;
    const revoking = (message: string): Outcome => ({
      ...invalidGrant(message),
      revokeGrant: grant.id,
    });
    if (grant.client_id !== client.client_id) {
      return revoking("the refresh token was issued to another client; its grant is revoked");
    }
    if (!used.first) {
      return revoking(
        "the refresh token was already used: every token of its grant is revoked (a copy may have leaked); authorize again",
      );
    }
    if (used.revoked) return revoking("the grant was revoked; authorize again");
    if (Date.parse(refresh.expires_at) <= now.getTime()) {
      return invalidGrant("the refresh token expired; authorize again");
    }
    if (await this.#proofRevoked(grant.proof_id, now)) {
      return revoking("the engram token that allowed this grant was revoked; authorize again");
    }
    const wanted = requestedTier(request.scope);
    if (wanted !== null && !tierAllows(grant.tier, wanted)) {
      // Thrown, not returned: the unit rolls back and the refresh token stays usable.
      throw new OAuthError(
        "invalid_scope",
        `the scope asks for tier ${wanted}, more than this grant's ${grant.tier}`,
        { status: 400 },
      );
    }
    const tier = wanted ?? grant.tier;
    const access = this.#accessToken(grant, tier, now);
    const next = this.#refreshToken(grant.id, access.record.id, now);
    await this.#ports.oauth.rotateGrant({
      grantId: grant.id,
      access: access.record,
      refresh: next.record,
    });
    return { response: this.#response(access.token, next.token, tier) };
  }

  /** Whether the engram token that proved the consent is revoked, expired or gone. */
  async #proofRevoked(proofId: string, now: Date): Promise<boolean> {
    // A pairing code proves once and is gone; only a token can be revoked later.
    if (!proofId.startsWith("tok_")) return false;
    const token = await this.#ports.tokens.findToken(proofId);
    return token === null || token.revoked_at !== null ||
      (token.expires_at !== null && Date.parse(token.expires_at) <= now.getTime());
  }

  #accessToken(
    grant: OAuthGrantRecord,
    tier: Tier,
    now: Date,
  ): { token: string; record: StoredToken } {
    const token = mintToken();
    return {
      token,
      record: {
        id: newId("tok"),
        client_id: grant.client_id,
        tier,
        brains: grant.brains,
        tools: grant.tools,
        prefix: displayPrefix(token),
        created_at: now.toISOString(),
        last_used_at: null,
        revoked_at: null,
        expires_at: new Date(now.getTime() + this.#settings.accessTokenTtlMs).toISOString(),
        audience: grant.resource,
        oauth_client_id: grant.client_id,
        token_hash: hashSecret(token),
      },
    };
  }

  #refreshToken(
    grantId: string,
    accessTokenId: string,
    now: Date,
  ): { token: string; record: RefreshTokenRecord } {
    const token = mintSecret("refresh");
    return {
      token,
      record: {
        id: `rft_${ulid(now.getTime())}`,
        token_hash: hashSecret(token),
        grant_id: grantId,
        access_token_id: accessTokenId,
        created_at: now.toISOString(),
        expires_at: this.#refreshExpiry(now),
        used_at: null,
      },
    };
  }

  #refreshExpiry(now: Date): string {
    return new Date(now.getTime() + this.#settings.refreshTokenTtlMs).toISOString();
  }

  #response(access: string, refresh: string, tier: Tier): TokenResponse {
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.floor(this.#settings.accessTokenTtlMs / 1000),
      refresh_token: refresh,
      scope: scopeOf(tier),
    };
  }
}

function invalidGrant(message: string): { error: OAuthError } {
  return { error: new OAuthError("invalid_grant", message, { status: 400 }) };
}

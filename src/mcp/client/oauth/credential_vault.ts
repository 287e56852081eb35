/**
 * @module What engram keeps per OAuth upstream, over the UpstreamCredentialStore port, sealed and
 * opened here (docs/upstream.md#where-tokens-live): the client registration and the tokens go
 * into the database only as AES-256-GCM text under the secret key (ENGRAM_SECRET_KEY or the key
 * file); what is not secret — expiry, scope, status, what discovery found — stays readable, so
 * `engram mcp auth status` needs no key. Nothing here writes a secret anywhere else.
 */
import type { SecretKeySource } from "../../../config/secret_key.ts";
import type {
  UpstreamClientKind,
  UpstreamCredentials,
  UpstreamCredentialsPatch,
  UpstreamCredentialStore,
} from "../../../core/ports/upstream_credentials.ts";
import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from "../../sdk_client.ts";
import { EngramError } from "../../../core/errors.ts";
import { loginCommand } from "./oauth_errors.ts";
import { sealedWithAnotherKey, SecretBox } from "./secret_box.ts";

/** What the vault works with. */
export interface VaultDeps {
  store: UpstreamCredentialStore;
  keys: SecretKeySource;
  /** The clock expiries are computed with. */
  now: () => Date;
}

/** Sealed credentials of every OAuth upstream. */
export class CredentialVault {
  readonly store: UpstreamCredentialStore;
  readonly #keys: SecretKeySource;
  readonly now: () => Date;
  #box: Promise<SecretBox> | null = null;
  /** Refreshes running in this process, by server and the token they replace. */
  readonly #refreshing = new Map<string, Promise<OAuthTokens | null>>();
  /**
   * The tokens last opened per server, by their sealed text: the SDK asks for the access token
   * before every request, and the sealed text changes whenever the tokens do.
   */
  readonly #opened = new Map<string, { sealed: string; tokens: Readonly<OAuthTokens> }>();

  constructor(deps: VaultDeps) {
    this.store = deps.store;
    this.#keys = deps.keys;
    this.now = deps.now;
  }

  /** Where the secret key comes from (`ENGRAM_SECRET_KEY` or the key file's path). */
  get keyWhere(): string {
    return this.#keys.where;
  }

  /**
   * Runs `refresh` unless one for the same server and reason runs in this process already: then
   * its outcome is shared (concurrent requests of one process wait for one refresh).
   */
  once(key: string, refresh: () => Promise<OAuthTokens | null>): Promise<OAuthTokens | null> {
    const running = this.#refreshing.get(key);
    if (running) return running;
    const started = refresh().finally(() => this.#refreshing.delete(key));
    this.#refreshing.set(key, started);
    return started;
  }

  /** A server's row, or null. */
  row(server: string): Promise<UpstreamCredentials | null> {
    return this.store.findCredentials(server);
  }

  /** The tokens a row holds, opened; null when it holds none. */
  async tokens(row: UpstreamCredentials): Promise<OAuthTokens | null> {
    if (row.tokens === null) return null;
    const last = this.#opened.get(row.server);
    if (last?.sealed === row.tokens) return last.tokens;
    const tokens = JSON.parse(await this.#open(row, row.tokens, "tokens")) as OAuthTokens;
    this.#opened.set(row.server, { sealed: row.tokens, tokens });
    return tokens;
  }

  /** The client registration a row holds, opened; null when it holds none. */
  async client(row: UpstreamCredentials): Promise<OAuthClientInformationMixed | null> {
    if (row.client === null) return null;
    return JSON.parse(await this.#open(row, row.client, "client")) as OAuthClientInformationMixed;
  }

  /** What discovery found for a server at its last login; null before one. */
  discovery(row: UpstreamCredentials | null): OAuthDiscoveryState | null {
    return (row?.discovery as OAuthDiscoveryState | null | undefined) ?? null;
  }

  /**
   * Keeps new tokens: sealed, with their expiry (from `expires_in`) and scope, and the server
   * logged in. `previousRefresh` is kept when the response brought no refresh token. With
   * `leaseHolder`, only while it holds the refresh lease (false: nothing written).
   */
  async saveTokens(
    server: string,
    tokens: OAuthTokens,
    options: { refreshed?: boolean; leaseHolder?: string; previousRefresh?: string } = {},
  ): Promise<boolean> {
    const kept = tokens.refresh_token === undefined && options.previousRefresh !== undefined
      ? { ...tokens, refresh_token: options.previousRefresh }
      : tokens;
    const now = this.now();
    const box = await this.#sealingBox();
    const patch: UpstreamCredentialsPatch = {
      key_id: box.keyId,
      tokens: await box.seal(JSON.stringify(kept), context(server, "tokens")),
      expires_at: kept.expires_in === undefined
        ? null
        : new Date(now.getTime() + kept.expires_in * 1000).toISOString(),
      refreshable: kept.refresh_token !== undefined,
      scope: kept.scope ?? null,
      status: "logged_in",
      detail: null,
      ...(options.refreshed ? { refreshed_at: now.toISOString() } : {
        logged_in_at: now.toISOString(),
        refreshed_at: null,
      }),
    };
    return await this.store.updateCredentials(server, patch, {
      ...(options.leaseHolder ? { leaseHolder: options.leaseHolder } : {}),
    });
  }

  /** Keeps a client registration (dynamic, or a metadata-document client ID), sealed. */
  async saveClient(
    server: string,
    client: OAuthClientInformationMixed,
    kind: UpstreamClientKind,
  ): Promise<void> {
    const box = await this.#sealingBox();
    const row = await this.row(server);
    if (row?.key_id && row.key_id !== box.keyId && row.tokens !== null) {
      // Tokens sealed under another key cannot be read any more: drop them with the old key id.
      await this.store.updateCredentials(server, { tokens: null, refreshable: false });
    }
    await this.store.updateCredentials(server, {
      key_id: box.keyId,
      client: await box.seal(JSON.stringify(client), context(server, "client")),
      client_kind: kind,
    });
  }

  /** Forgets the kept client registration (it will register again). */
  async forgetClient(server: string): Promise<void> {
    await this.store.updateCredentials(server, { client: null, client_kind: null });
  }

  /** Keeps what discovery found (nothing secret). */
  async saveDiscovery(server: string, state: OAuthDiscoveryState): Promise<void> {
    await this.store.updateCredentials(server, {
      discovery: state as unknown as Record<string, unknown>,
    });
  }

  /**
   * Marks the server as needing a login, saying why; `dropTokens` forgets tokens that can no
   * longer be used; `requiredScope` is what a step-up asked for, asked for at the next login.
   */
  async markNeedsLogin(
    server: string,
    detail: string,
    options: { dropTokens?: boolean; requiredScope?: string } = {},
  ): Promise<void> {
    await this.store.updateCredentials(server, {
      status: "needs_login",
      detail,
      ...(options.dropTokens ? { tokens: null, refreshable: false, expires_at: null } : {}),
      ...(options.requiredScope !== undefined ? { required_scope: options.requiredScope } : {}),
    });
  }

  /** Marks the refresh as failing for a reason that may pass (the server unreachable). */
  async markRefreshFailing(server: string, detail: string): Promise<void> {
    await this.store.updateCredentials(server, { status: "refresh_failing", detail });
  }

  /** Forgets everything kept for the server; false when nothing was. */
  forget(server: string): Promise<boolean> {
    return this.store.removeCredentials(server);
  }

  async #open(row: UpstreamCredentials, sealed: string, field: string): Promise<string> {
    const what = `the ${field} kept for upstream ${JSON.stringify(row.server)}`;
    const box = await this.#readingBox();
    try {
      if (box === null) {
        throw sealedWithAnotherKey(
          what,
          row.key_id ?? "?",
          `none (${this.#keys.where} is missing)`,
        );
      }
      return await box.open(sealed, context(row.server, field), what);
    } catch (error) {
      if (!(error instanceof EngramError)) throw error;
      throw new EngramError(
        error.code,
        `${error.message}; or log in again with: ${loginCommand(row.server)}`,
        { cause: error },
      );
    }
  }

  /** The box of the key in use, creating the key file the first time a secret is sealed. */
  #sealingBox(): Promise<SecretBox> {
    this.#box ??= this.#keys.readOrCreate().then((k) => SecretBox.fromKey(k.bytes)).catch(
      (err) => {
        this.#box = null;
        throw err;
      },
    );
    return this.#box;
  }

  /** The box of the key in use; null while there is no key (nothing was ever sealed). */
  async #readingBox(): Promise<SecretBox | null> {
    if (this.#box) return await this.#box;
    const key = await this.#keys.read();
    if (key === null) return null;
    this.#box ??= SecretBox.fromKey(key.bytes);
    return await this.#box;
  }

  /** The id of the key in use, or null while there is none; a malformed key throws. */
  async currentKeyId(): Promise<string | null> {
    return (await this.#readingBox())?.keyId ?? null;
  }
}

/** What a sealed value is bound to: its server (without case) and field. */
function context(server: string, field: string): string {
  return `engram upstream ${server.toLowerCase()} ${field}`;
}

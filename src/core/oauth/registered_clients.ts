/**
 * @module The operator's view of OAuth clients (`engram tokens clients`): every registration with
 * what it holds, and removing one with its tokens.
 */
import { EngramError } from "../errors.ts";
import type { ListedOAuthClient, OAuthStore } from "../ports/oauth_store.ts";

/** Lists and removes OAuth clients. */
export class RegisteredClients {
  readonly #oauth: OAuthStore;
  readonly #now: () => Date;

  /** `options.now` is the clock tokens are judged live by. */
  constructor(ports: { oauth: OAuthStore }, options: { now?: () => Date } = {}) {
    this.#oauth = ports.oauth;
    this.#now = options.now ?? (() => new Date());
  }

  /** Every client, oldest first, with its live access tokens and grants. */
  list(): Promise<ListedOAuthClient[]> {
    return this.#oauth.listClients(this.#now().toISOString());
  }

  /** Removes a client with its codes, grants and tokens: they stop working at once. */
  async remove(clientId: string): Promise<{ accessTokens: number }> {
    const removed = await this.#oauth.deleteClient(clientId);
    if (!removed) {
      throw new EngramError(
        "not_found",
        `OAuth client ${
          JSON.stringify(clientId)
        } not found; list clients with: engram tokens clients`,
      );
    }
    return removed;
  }
}

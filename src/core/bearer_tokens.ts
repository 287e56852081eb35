/**
 * @module Bearer tokens for the HTTP transport: minted once, kept only as a SHA-256 hash, and
 * checked in constant time. A token grants a client id, a tier and the brains it may touch.
 */
import { z } from "zod";
import { EngramError } from "./errors.ts";
import { randomSecret, sameSha256Hex, sha256Hex } from "./hash.ts";
import { newId } from "./ids.ts";
import type { BrainStore } from "./ports/brain_store.ts";
import type { ListedToken, StoredToken, TokenRecord, TokenStore } from "./ports/token_store.ts";
import { TOOL_NAME_OR_GLOB } from "./tool_names.ts";
import type { Tier } from "./types.ts";
import { parseInput } from "./validate.ts";

/** What every token starts with, so a leaked one is recognisable (and greppable by scanners). */
const TOKEN_PREFIX = "egt_";

/** A well-formed token: the prefix and 43 base64url characters (32 random bytes, unpadded). */
export const TOKEN_PATTERN = /^egt_[A-Za-z0-9_-]{43}$/;

/** How many characters of the secret are kept in clear, to tell tokens apart in listings. */
const TOKEN_DISPLAY_CHARS = 8;

/** last_used_at is written at most this often per token, so a busy client costs no write per request. */
export const TOUCH_INTERVAL_MS = 60_000;

/** What a valid token lets its bearer do; `brains` holds brain ids, or `"*"` for all. */
export interface TokenGrant {
  tokenId: string;
  clientId: string;
  tier: Tier;
  brains: string[] | "*";
  /** Tool names and globs its sessions are limited to; absent: every tool of its tier. */
  tools?: string[];
  /**
   * Created with `--operator`: with tier admin, the console offers it approving and revoking
   * upstream capabilities (docs/console.md#upstream-servers); absent or false: never.
   */
  operator?: boolean;
}

/** Presented tokens whose hash is remembered; a flood of made-up ones only clears the memo. */
const HASHES_KEPT = 1024;

/** Input of `create`: a client name, a tier, and optionally the brains (slugs or ids) it is limited to. */
export const CreateTokenInput = z.object({
  client: z.string().min(1).max(128).regex(
    /^[A-Za-z0-9._@-]+$/,
    "client must be 1..128 characters matching ^[A-Za-z0-9._@-]+$",
  ),
  tier: z.enum(["read", "write", "admin"]),
  brains: z.array(z.string().min(1).max(128)).min(1).max(256).optional(),
  tools: z.array(z.string().regex(TOOL_NAME_OR_GLOB)).min(1).max(256).optional(),
  operator: z.boolean().optional(),
}).strict();

/** Parsed create input. */
export type CreateTokenArgs = z.infer<typeof CreateTokenInput>;

export type { ListedToken, TokenRecord } from "./ports/token_store.ts";

/** Options of `verify`. */
export interface VerifyOptions {
  /**
   * This server's resource (its `/mcp` URL). A token bound to an audience (an OAuth access token)
   * is accepted only when it is this; without it, only tokens bound to none are.
   */
  audience?: string;
}

/** The ports the token service works on: token rows, and brains to resolve scopes. */
export interface TokenPorts {
  tokens: TokenStore;
  brains: Pick<BrainStore, "findBrain">;
}

/** Mints, lists, revokes and verifies bearer tokens. */
export class TokenService {
  #store: TokenStore;
  #brains: Pick<BrainStore, "findBrain">;
  #now: () => Date;
  #hashes = new Map<string, string>();

  /** `options.now` is the clock (tests move it to check the last_used_at throttle). */
  constructor(ports: TokenPorts, options: { now?: () => Date } = {}) {
    this.#store = ports.tokens;
    this.#brains = ports.brains;
    this.#now = options.now ?? (() => new Date());
  }

  /** Creates a token; the returned `token` is the only time the secret exists outside its holder. */
  async create(
    input: { client: string; tier: Tier; brains?: string[]; tools?: string[]; operator?: boolean },
  ): Promise<{ token: string; record: TokenRecord }> {
    const args = parseInput(CreateTokenInput, input, "tokens create");
    const operator = operatorProblem(args);
    if (operator) throw new EngramError("invalid_argument", operator);
    const brains = args.brains === undefined
      ? "*"
      : await resolveBrainIds(this.#brains, args.brains);
    const token = mintToken();
    const record: TokenRecord = {
      id: newId("tok"),
      client_id: args.client,
      tier: args.tier,
      brains,
      tools: args.tools ?? null,
      prefix: displayPrefix(token),
      created_at: this.#now().toISOString(),
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
      audience: null,
      oauth_client_id: null,
      ...(args.operator ? { operator: true } : {}),
    };
    await this.#store.insertToken({ ...record, token_hash: sha256Hex(token) });
    return { token, record };
  }

  /** Every token, revoked and expired ones included, oldest first. */
  list(): Promise<ListedToken[]> {
    return this.#store.listTokens();
  }

  /** Revokes a token by id: `not_found` if there is none, `conflict` if it was already revoked. */
  async revoke(id: string): Promise<TokenRecord> {
    const out = await this.#store.revokeToken(id, this.#now().toISOString());
    if (!out) {
      throw new EngramError(
        "not_found",
        `token "${id}" not found; list tokens with: engram tokens list`,
      );
    }
    if (!out.revokedNow) {
      throw new EngramError(
        "conflict",
        `token ${id} was already revoked at ${out.token.revoked_at}; nothing to do`,
      );
    }
    return out.token;
  }

  /**
   * The grant of a live token, or null for a malformed, unknown, revoked or expired one, or one
   * bound to another audience than `options.audience` (docs/http.md#authentication).
   */
  async verify(token: string, options: VerifyOptions = {}): Promise<TokenGrant | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const hash = this.#hashOf(token);
    const row = await this.#store.findTokenByHash(hash);
    // The index lookup already matched; comparing again in constant time keeps the decision itself
    // free of data-dependent timing, whatever the database's comparison does.
    if (!row || !sameSha256Hex(row.token_hash, hash) || row.revoked_at !== null) return null;
    if (row.expires_at !== null && Date.parse(row.expires_at) <= this.#now().getTime()) return null;
    if (row.audience !== null && row.audience !== options.audience) return null;
    await this.#touch(row);
    return {
      tokenId: row.id,
      clientId: row.client_id,
      tier: row.tier,
      brains: row.brains,
      ...(row.tools ? { tools: row.tools } : {}),
      // Only an admin token from `engram tokens create` carries it, whatever a row says.
      ...(row.operator === true && row.tier === "admin" && row.oauth_client_id === null
        ? { operator: true }
        : {}),
    };
  }

  /** SHA-256 of a presented token; remembered, since a client sends the same one on every request. */
  #hashOf(token: string): string {
    let hash = this.#hashes.get(token);
    if (hash === undefined) {
      if (this.#hashes.size >= HASHES_KEPT) this.#hashes.clear();
      hash = sha256Hex(token);
      this.#hashes.set(token, hash);
    }
    return hash;
  }

  async #touch(row: StoredToken): Promise<void> {
    const now = this.#now();
    const olderThan = new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString();
    if (row.last_used_at !== null && row.last_used_at > olderThan) return;
    try {
      await this.#store.touchToken(row.id, now.toISOString(), { olderThan });
    } catch (err) {
      // last_used_at is bookkeeping: a writer holding the database must not fail authentication.
      if (!(err instanceof EngramError && err.code === "busy")) throw err;
    }
  }
}

/**
 * Why the operator flag cannot go on this token, or null: it is for admin tokens only, since
 * approving upstream tools is beyond every lower tier (docs/console.md#upstream-servers).
 */
export function operatorProblem(args: { tier: Tier; operator?: boolean }): string | null {
  if (!args.operator || args.tier === "admin") return null;
  return `--operator needs --tier admin (this token would be tier ${args.tier}): an operator approves upstream tools, which only the admin tier reaches; add --tier admin or leave out --operator`;
}

/** Brain ids of the brains `refs` names (slugs or ids), each once; `not_found` names a missing one. */
export async function resolveBrainIds(
  brains: Pick<BrainStore, "findBrain">,
  refs: string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of refs) {
    const brain = await brains.findBrain(ref);
    if (!brain) {
      throw new EngramError(
        "not_found",
        `brain "${ref}" not found; list brains with: engram brains list`,
      );
    }
    if (!ids.includes(brain.id)) ids.push(brain.id);
  }
  return ids;
}

/** The characters of a token kept in clear (after `egt_`), to tell tokens apart in listings. */
export function displayPrefix(token: string): string {
  return token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + TOKEN_DISPLAY_CHARS);
}

/** A new token: `egt_` and 32 random bytes from Web Crypto, base64url without padding. */
export function mintToken(): string {
  return TOKEN_PREFIX + randomSecret();
}

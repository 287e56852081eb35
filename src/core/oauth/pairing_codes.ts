/**
 * @module Pairing codes (`engram tokens pair`): a one-time proof, typed or pasted into engram's
 * consent page instead of an engram token, valid ten minutes. It grants at most its tier and
 * brains. Sixteen Crockford base32 characters (80 random bits) in groups of four, read forgivingly
 * (any case, with or without dashes, O for 0 and I or L for 1); kept only as a hash.
 */
import { z } from "zod";
import { resolveBrainIds } from "../bearer_tokens.ts";
import { ulid } from "../ids.ts";
import type { BrainStore } from "../ports/brain_store.ts";
import type { OAuthStore, PairingCodeRecord } from "../ports/oauth_store.ts";
import type { Tier } from "../types.ts";
import { parseInput } from "../validate.ts";
import { hashSecret } from "./oauth_secrets.ts";

/** How long a pairing code is valid. */
export const PAIRING_TTL_MS = 10 * 60_000;

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_CHARS = 16;

/** Input of `create`: a tier, and optionally the brains (slugs or ids) it is limited to. */
export const PairCodeInput = z.object({
  tier: z.enum(["read", "write", "admin"]),
  brains: z.array(z.string().min(1).max(128)).min(1).max(256).optional(),
}).strict();

/** A pairing code as the operator sees it: never the code, never its hash. */
export type PairingCodeView = Omit<PairingCodeRecord, "code_hash">;

/** The canonical form of a typed pairing code (16 characters, upper case), or null if it is none. */
export function normalizePairingCode(text: string): string | null {
  const plain = text.trim().toUpperCase().replace(/[\s-]/g, "").replaceAll("O", "0")
    .replace(/[IL]/g, "1");
  return plain.length === CODE_CHARS && [...plain].every((c) => ALPHABET.includes(c))
    ? plain
    : null;
}

/** Creates and uses pairing codes. */
export class PairingCodes {
  readonly #oauth: OAuthStore;
  readonly #brains: Pick<BrainStore, "findBrain">;
  readonly #now: () => Date;

  /** `options.now` is the clock codes expire by. */
  constructor(
    ports: { oauth: OAuthStore; brains: Pick<BrainStore, "findBrain"> },
    options: { now?: () => Date } = {},
  ) {
    this.#oauth = ports.oauth;
    this.#brains = ports.brains;
    this.#now = options.now ?? (() => new Date());
  }

  /** A new code (shown once, as `XXXX-XXXX-XXXX-XXXX`) and its record. */
  async create(
    input: { tier: Tier; brains?: string[] },
  ): Promise<{ code: string; record: PairingCodeView }> {
    const args = parseInput(PairCodeInput, input, "tokens pair");
    const brains = args.brains === undefined
      ? "*"
      : await resolveBrainIds(this.#brains, args.brains);
    const now = this.#now();
    const bytes = crypto.getRandomValues(new Uint8Array(CODE_CHARS));
    // 256 is a multiple of 32: every character is equally likely.
    const plain = [...bytes].map((b) => ALPHABET[b % 32]).join("");
    const record: PairingCodeRecord = {
      id: `pair_${ulid(now.getTime())}`,
      code_hash: hashSecret(plain),
      tier: args.tier,
      brains,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + PAIRING_TTL_MS).toISOString(),
      used_at: null,
    };
    await this.#oauth.insertPairingCode(record);
    const { code_hash: _, ...view } = record;
    return { code: plain.match(/.{4}/g)!.join("-"), record: view };
  }

  /** The record of an unused, unexpired code, which is used from now on; null otherwise. */
  async consume(text: string): Promise<PairingCodeRecord | null> {
    const plain = normalizePairingCode(text);
    if (plain === null) return null;
    return await this.#oauth.consumePairingCode(hashSecret(plain), this.#now().toISOString());
  }
}

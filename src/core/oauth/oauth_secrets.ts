/**
 * @module The authorization server's secrets: authorization codes (`egc_`), refresh tokens
 * (`egr_`) and client secrets (`egs_`), each 32 random bytes, kept only as their SHA-256 and
 * compared in constant time. The prefixes make a leaked one recognisable, as `egt_` does for
 * access tokens.
 */
import { randomSecret, sameSha256Hex, sha256Hex } from "../hash.ts";

/** The prefix of each kind of secret. */
export const SECRET_PREFIX = {
  code: "egc_",
  refresh: "egr_",
  clientSecret: "egs_",
} as const;

/** A new secret: the prefix and 32 random bytes, base64url without padding. */
export function mintSecret(kind: keyof typeof SECRET_PREFIX): string {
  return SECRET_PREFIX[kind] + randomSecret();
}

/** The SHA-256 a secret is stored and looked up by. */
export function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  return sameSha256Hex(hashSecret(secret), storedHash);
}

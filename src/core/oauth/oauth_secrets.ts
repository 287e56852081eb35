/**
 * @module The authorization server's secrets: authorization codes (`egc_`), refresh tokens
 * (`egr_`) and client secrets (`egs_`), each 32 random bytes, kept only as their SHA-256 and
 * compared in constant time. The prefixes make a leaked one recognisable, as `egt_` does for
 * access tokens.
 */
import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../hash.ts";

/** The prefix of each kind of secret. */
export const SECRET_PREFIX = {
  code: "egc_",
  refresh: "egr_",
  clientSecret: "egs_",
} as const;

/** A new secret: the prefix and 32 random bytes, base64url without padding. */
export function mintSecret(kind: keyof typeof SECRET_PREFIX): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return SECRET_PREFIX[kind] + Buffer.from(bytes).toString("base64url");
}

/** The SHA-256 a secret is stored and looked up by. */
export function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === 32 && b.length === 32 && timingSafeEqual(a, b);
}

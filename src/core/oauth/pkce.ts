/**
 * @module PKCE (RFC 7636) with S256 only, as OAuth 2.1 and MCP require: the challenge is the
 * base64url SHA-256 of the verifier, compared in constant time.
 */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";

/** A code verifier: 43..128 unreserved characters (RFC 7636 §4.1). */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** An S256 code challenge: base64url of 32 bytes, unpadded (43 characters). */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Whether `challenge` can be an S256 code challenge. */
export function isS256Challenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** The S256 challenge of a verifier. */
export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** Whether `verifier` is well formed and hashes to `challenge`. */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  const a = Buffer.from(s256Challenge(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

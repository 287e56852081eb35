/**
 * @module Content hashing shared by documents, audit digests and launch manifests; and the random
 * secrets (tokens, codes, cookies) that are kept only as their SHA-256.
 */
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Lowercase hex SHA-256 of raw bytes (a source file's identity). */
export function sha256Bytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** 32 random bytes from Web Crypto, base64url without padding: the body of every secret engram mints. */
export function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** Whether two hex SHA-256 digests are equal, compared in constant time; a malformed one never is. */
export function sameSha256Hex(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}

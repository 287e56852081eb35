/**
 * @module Sealing secrets at rest (docs/upstream.md#where-tokens-live): AES-256-GCM with Web Crypto,
 * a fresh 96-bit IV per value, and associated data binding each value to its server and field, so a
 * sealed token moved to another row does not open. A sealed value names its key by a short digest
 * (`key_id`), so a value sealed under another key is refused as such, not as damage.
 */
import { Buffer } from "node:buffer";
import { EngramError } from "../../../core/errors.ts";
import { sha256Bytes } from "../../../core/hash.ts";

/** The prefix of a sealed value; the format is `aes256gcm:<key id>:<iv>:<ciphertext>` (base64url). */
const SCHEME = "aes256gcm";

/** A key that seals and opens values. */
export class SecretBox {
  /** The first 12 hex digits of the key's SHA-256: names the key, reveals nothing of it. */
  readonly keyId: string;
  readonly #key: CryptoKey;

  private constructor(key: CryptoKey, keyId: string) {
    this.#key = key;
    this.keyId = keyId;
  }

  /** A box over 32 raw key bytes. */
  static async fromKey(bytes: Uint8Array): Promise<SecretBox> {
    const raw = new Uint8Array(bytes);
    const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, [
      "encrypt",
      "decrypt",
    ]);
    return new SecretBox(key, sha256Bytes(raw).slice(0, 12));
  }

  /** Seals `plaintext`, bound to `context` (the server and field it belongs to). */
  async seal(plaintext: string, context: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: encode(context) },
      this.#key,
      encode(plaintext),
    );
    return [SCHEME, this.keyId, base64url(iv), base64url(new Uint8Array(sealed))].join(":");
  }

  /**
   * Opens a value sealed by `seal` with the same `context`. A value sealed under another key, or
   * damaged, or moved from another server or field, is `forbidden` with `what` it was.
   */
  async open(sealed: string, context: string, what: string): Promise<string> {
    const [scheme, keyId, iv, data] = sealed.split(":");
    if (scheme !== SCHEME || !keyId || !iv || !data) {
      throw new EngramError("forbidden", `${what} is not a sealed value engram can read`);
    }
    if (keyId !== this.keyId) throw sealedWithAnotherKey(what, keyId, this.keyId);
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: unbase64url(iv), additionalData: encode(context) },
        this.#key,
        unbase64url(data),
      );
      return new TextDecoder().decode(plain);
    } catch (err) {
      throw new EngramError(
        "forbidden",
        `${what} does not open with key ${this.keyId}: it was damaged, or belongs to another server`,
        { cause: err },
      );
    }
  }
}

/** The refusal for a value sealed under key `stored` when the key in use is `current`. */
export function sealedWithAnotherKey(what: string, stored: string, current: string): EngramError {
  return new EngramError(
    "forbidden",
    `${what} was sealed with key ${stored}, but the key in use is ${current}: restore the key file or ENGRAM_SECRET_KEY it was made under`,
  );
}

function encode(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

function unbase64url(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(text, "base64url"));
}

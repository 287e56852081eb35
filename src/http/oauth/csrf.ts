/**
 * @module The consent form's CSRF protection (docs/connectors.md#security-model): a token bound to
 * the browser (a random cookie, SameSite=Strict) and to the authorization request the page showed
 * (an HMAC over its fields), valid for a few minutes.
 */
import { Buffer } from "node:buffer";
import { timingSafeEqual } from "node:crypto";
import { randomSecret } from "../../core/hash.ts";

/** How long a consent page may be answered. */
export const CONSENT_TTL_MS = 10 * 60 * 1000;

/** The cookie's name: `__Host-` (Secure, whole site, no Domain) where https allows it. */
export function csrfCookieName(secure: boolean): string {
  return secure ? "__Host-engram_consent" : "engram_consent";
}

const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Signs and checks consent-form tokens with a key that lives as long as the process. */
export class ConsentCsrf {
  #key: Promise<CryptoKey>;
  #now: () => number;
  #secure: boolean;

  /** `secure`: the public URL is https, so the cookie is `Secure` and `__Host-` prefixed. */
  constructor(options: { secure: boolean; now?: () => number }) {
    this.#secure = options.secure;
    this.#now = options.now ?? Date.now;
    this.#key = crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  /** The browser's nonce from its cookie, if it sent a well-formed one. */
  nonceOf(req: Request): string | null {
    const name = csrfCookieName(this.#secure);
    for (const part of (req.headers.get("cookie") ?? "").split(";")) {
      const [k, v] = part.trim().split("=", 2);
      if (k === name && v !== undefined && NONCE_PATTERN.test(v)) return v;
    }
    return null;
  }

  /** A fresh nonce and the `Set-Cookie` value that gives it to the browser. */
  newNonce(): { nonce: string; setCookie: string } {
    const nonce = randomSecret();
    const attrs = [
      `${csrfCookieName(this.#secure)}=${nonce}`,
      "Path=/",
      "HttpOnly",
      "SameSite=Strict",
      `Max-Age=${Math.floor(CONSENT_TTL_MS / 1000)}`,
      ...(this.#secure ? ["Secure"] : []),
    ];
    return { nonce, setCookie: attrs.join("; ") };
  }

  /** The token for a form showing `fields` to the browser holding `nonce`. */
  async sign(nonce: string, fields: readonly string[]): Promise<string> {
    const expires = this.#now() + CONSENT_TTL_MS;
    return `${expires}.${await this.#mac(nonce, expires, fields)}`;
  }

  /** Why a posted token does not fit this browser and these fields, or null when it does. */
  async check(
    token: string | undefined,
    options: { nonce: string | null; fields: readonly string[] },
  ): Promise<string | null> {
    if (!token || options.nonce === null) {
      return "the consent form's session is missing (cookies must be allowed for this site)";
    }
    const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return "the consent form's token is malformed";
    const expires = Number(match[1]);
    if (expires < this.#now()) return "the consent page expired";
    const expected = Buffer.from(await this.#mac(options.nonce, expires, options.fields));
    const given = Buffer.from(match[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return "the consent form does not match the page engram showed in this browser";
    }
    return null;
  }

  async #mac(nonce: string, expires: number, fields: readonly string[]): Promise<string> {
    // JSON keeps field boundaries unambiguous whatever the fields contain.
    const data = new TextEncoder().encode(JSON.stringify([nonce, expires, ...fields]));
    const mac = await crypto.subtle.sign("HMAC", await this.#key, data);
    return Buffer.from(mac).toString("base64url");
  }
}

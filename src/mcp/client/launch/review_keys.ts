/**
 * @module Review keys: who may sign a stdio launch. A reviewer holds an Ed25519 private key
 * (PKCS#8 PEM, the format `openssl genpkey -algorithm ed25519` writes too); `mcp.review_keys`
 * lists the public halves as `ed25519:<base64 of the 32 raw bytes>`. A signature is the base64
 * Ed25519 signature (Web Crypto) over the UTF-8 bytes of the manifest digest string.
 */
import { EngramError } from "../../../core/errors.ts";
import { REVIEW_KEY } from "../../../config/mcp_servers.ts";

/** The file name `engram mcp keys generate` writes into its output directory. */
export const REVIEW_KEY_FILE = "engram-review-key.pem";

const ED25519 = { name: "Ed25519" } as const;

/** A private key read from a PEM file, with the `review_keys` entry of its public half. */
export interface ReviewSigner {
  key: CryptoKey;
  reviewKey: string;
}

/**
 * Generates a key pair; writes the private key as PKCS#8 PEM with mode 0600, never over an
 * existing file, and returns the `review_keys` entry to publish.
 */
export async function generateReviewKey(
  file: string,
): Promise<{ file: string; reviewKey: string }> {
  const pair = await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"]) as CryptoKeyPair;
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const pem = `-----BEGIN PRIVATE KEY-----\n${
    base64(der).match(/.{1,64}/g)!.join("\n")
  }\n-----END PRIVATE KEY-----\n`;
  try {
    await Deno.writeTextFile(file, pem, { createNew: true, mode: 0o600 });
    await Deno.chmod(file, 0o600);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new EngramError(
        "conflict",
        `key file ${file} already exists; a review key is never overwritten: choose another --out directory`,
      );
    }
    throw new EngramError(
      "invalid_argument",
      `cannot write key file ${file}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { file, reviewKey: `ed25519:${base64(raw)}` };
}

/** Reads a PKCS#8 PEM Ed25519 private key; a malformed file is one line naming it and the fix. */
export async function readPrivateKey(file: string): Promise<ReviewSigner> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound
      ? "does not exist"
      : `cannot be read (${(err as Error).name})`;
    throw new EngramError(
      "invalid_argument",
      `key file ${file} ${why}; pass the private key written by engram mcp keys generate`,
      { cause: err },
    );
  }
  return await parsePrivateKey(text, file);
}

/** Parses PEM text (see readPrivateKey); `file` names it in errors. */
export async function parsePrivateKey(text: string, file: string): Promise<ReviewSigner> {
  const bad = (
    why: string,
    fix = "generate one with: engram mcp keys generate (or openssl genpkey -algorithm ed25519)",
  ) => new EngramError("invalid_argument", `key file ${file} ${why}; ${fix}`);
  const block = text.match(/-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/);
  if (!block) throw bad("is not a PEM private key (no -----BEGIN PRIVATE KEY----- block)");
  const label = block[1];
  if (label === "ENCRYPTED PRIVATE KEY") {
    throw bad("is encrypted", `decrypt a copy first: openssl pkey -in ${file} -out plain.pem`);
  }
  if (label !== "PRIVATE KEY") {
    throw bad(`holds a "${label}" block, not an Ed25519 PKCS#8 "PRIVATE KEY"`);
  }
  const der = decodeBase64(block[2].replace(/\s+/g, ""));
  if (!der) throw bad("has a damaged PEM body (not base64)");
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("pkcs8", der, ED25519, true, ["sign"]);
  } catch {
    throw bad("does not hold an Ed25519 private key");
  }
  const jwk = await crypto.subtle.exportKey("jwk", key);
  // JWK `x` is the raw public key in unpadded base64url.
  const x = jwk.x!.replace(/-/g, "+").replace(/_/g, "/");
  const publicRaw = decodeBase64(x + "=".repeat((4 - x.length % 4) % 4));
  return { key, reviewKey: `ed25519:${base64(publicRaw!)}` };
}

/** The base64 Ed25519 signature over the UTF-8 bytes of `digest`. */
export async function signDigest(digest: string, signer: ReviewSigner): Promise<string> {
  const signature = await crypto.subtle.sign(
    ED25519,
    signer.key,
    new TextEncoder().encode(digest),
  );
  return base64(new Uint8Array(signature));
}

/** The 32 raw bytes of a `review_keys` entry, or null when it is not one. */
export function reviewKeyBytes(entry: string): Uint8Array<ArrayBuffer> | null {
  if (!REVIEW_KEY.test(entry)) return null;
  return decodeBase64(entry.slice("ed25519:".length));
}

/**
 * The review key (as listed in `reviewKeys`) whose holder made `signature` over `digest`, or null
 * when none did. A signature that is not base64 of 64 bytes verifies with no key.
 */
export async function findSigner(
  digest: string,
  signed: { signature: string; reviewKeys: readonly string[] },
): Promise<string | null> {
  const { signature, reviewKeys } = signed;
  const sig = decodeBase64(signature);
  if (!sig || sig.length !== 64) return null;
  const data = new TextEncoder().encode(digest);
  for (const entry of reviewKeys) {
    const raw = reviewKeyBytes(entry);
    if (!raw) continue;
    const key = await crypto.subtle.importKey("raw", raw, ED25519, false, ["verify"]);
    if (await crypto.subtle.verify(ED25519, key, sig, data)) return entry;
  }
  return null;
}

/** Standard base64 with padding. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Strict standard base64 (padding required), or null. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

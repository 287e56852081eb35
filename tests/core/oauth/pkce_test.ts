import assert from "node:assert/strict";
import { isS256Challenge, s256Challenge, verifyS256 } from "../../../src/core/oauth/pkce.ts";

/** The S256 challenge computed with Web Crypto, independently of pkce.ts. */
async function webCryptoChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

Deno.test("s256Challenge is base64url SHA-256 of the verifier, as Web Crypto computes it", async () => {
  const verifier = "dBjftJeZ4CVP-mJ92K9pTTRHTk0QnePrTTbhNeHu6Sd";
  assert.equal(s256Challenge(verifier), await webCryptoChallenge(verifier));
  assert.ok(isS256Challenge(s256Challenge(verifier)));
});

Deno.test("verifyS256 accepts the verifier, refuses any other and malformed ones", () => {
  const verifier = "a".repeat(43);
  const challenge = s256Challenge(verifier);
  assert.ok(verifyS256(verifier, challenge));
  assert.ok(verifyS256("Z~._-".repeat(25) + "abc", s256Challenge("Z~._-".repeat(25) + "abc")));
  assert.ok(!verifyS256("b".repeat(43), challenge), "another verifier");
  assert.ok(!verifyS256("a".repeat(42), s256Challenge("a".repeat(42))), "too short (RFC 7636)");
  assert.ok(!verifyS256("a".repeat(129), s256Challenge("a".repeat(129))), "too long");
  assert.ok(
    !verifyS256("a".repeat(42) + "!", s256Challenge("a".repeat(42) + "!")),
    "not unreserved",
  );
  assert.ok(!verifyS256(verifier, verifier), "plain is not S256");
  assert.ok(!verifyS256(verifier, challenge + "A"), "a challenge of another length");
});

Deno.test("isS256Challenge: 43 base64url characters only", () => {
  assert.ok(isS256Challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
  assert.ok(!isS256Challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c"));
  assert.ok(!isS256Challenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM"));
  assert.ok(!isS256Challenge(""));
});

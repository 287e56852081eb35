/** Review keys: generation, reading PEM files, signatures, and interoperability with openssl. */
import assert from "node:assert/strict";
import { REVIEW_KEY } from "../../../../src/config/mcp_servers.ts";
import { EngramError } from "../../../../src/core/errors.ts";
import {
  findSigner,
  generateReviewKey,
  parsePrivateKey,
  readPrivateKey,
  reviewKeyBytes,
  signDigest,
} from "../../../../src/mcp/client/launch/review_keys.ts";
import {
  canonicalJson,
  launchManifest,
  manifestDigest,
} from "../../../../src/mcp/client/launch/launch_manifest.ts";
import { tempDir } from "../../../helpers.ts";
import { stdioServer, testSigner } from "../launch_setup.ts";

const HAS_OPENSSL = await new Deno.Command("openssl", { args: ["version"], stdout: "null" })
  .output().then((o) => o.success, () => false);
if (!HAS_OPENSSL) console.log("skipping openssl interoperability tests: openssl is not installed");

const DIGEST = `sha256:${"ab".repeat(32)}`;

/** Runs a POSIX shell script (the commands a reviewer would type) in `cwd`. */
async function sh(script: string, cwd: string): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-ec", script],
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return new TextDecoder().decode(out.stdout).trim();
}

/** Asserts one invalid_argument line that names the file and matches `pattern`. */
async function assertKeyError(promise: Promise<unknown>, file: string, pattern: RegExp) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "invalid_argument");
    assert.ok(err.message.startsWith(`key file ${file} `), err.message);
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes("\n"), err.message);
    return true;
  });
}

Deno.test("keys generate: PKCS#8 PEM with mode 0600, the review_keys entry, never overwritten", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/reviewer.pem`;
  const { reviewKey } = await generateReviewKey(file);
  assert.match(reviewKey, REVIEW_KEY);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  const pem = await Deno.readTextFile(file);
  assert.match(pem, /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
  assert.equal(
    (await readPrivateKey(file)).reviewKey,
    reviewKey,
    "the public half is derived back",
  );
  await assert.rejects(generateReviewKey(file), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "conflict");
    assert.match(
      err.message,
      /^key file .*reviewer\.pem already exists; a review key is never overwritten/,
    );
    return true;
  });
  assert.equal(await Deno.readTextFile(file), pem, "the existing key is untouched");
});

Deno.test("signatures: verify with the listed key, not with an unknown one, not for another digest", async () => {
  const signer = await testSigner();
  const other = await testSigner();
  const signature = await signDigest(DIGEST, signer);
  assert.equal(
    await findSigner(DIGEST, { signature, reviewKeys: [other.reviewKey, signer.reviewKey] }),
    signer.reviewKey,
  );
  assert.equal(
    await findSigner(DIGEST, { signature, reviewKeys: [other.reviewKey] }),
    null,
    "unknown key",
  );
  assert.equal(
    await findSigner(`sha256:${"cd".repeat(32)}`, { signature, reviewKeys: [signer.reviewKey] }),
    null,
  );
  assert.equal(
    await findSigner(DIGEST, { signature: "not base64!", reviewKeys: [signer.reviewKey] }),
    null,
  );
  assert.equal(
    await findSigner(DIGEST, { signature: btoa("short"), reviewKeys: [signer.reviewKey] }),
    null,
  );
  assert.equal(await findSigner(DIGEST, { signature, reviewKeys: ["ed25519:garbage"] }), null);
});

Deno.test("review key entries: exactly ed25519: and the base64 of 32 bytes", async () => {
  const { reviewKey } = await testSigner();
  assert.equal(reviewKeyBytes(reviewKey)?.length, 32);
  for (
    const bad of [
      reviewKey.replace("ed25519:", "ed448:"),
      reviewKey.slice(0, -2) + "=",
      `ed25519:${btoa("x".repeat(31))}`,
      `ed25519:${btoa("x".repeat(33))}`,
      reviewKey.replace("=", ""),
    ]
  ) assert.equal(reviewKeyBytes(bad), null, bad);
});

Deno.test("malformed key files: one clear line each, naming the file and the fix", async () => {
  await using dir = await tempDir();
  const write = async (name: string, text: string) => {
    const file = `${dir.path}/${name}`;
    await Deno.writeTextFile(file, text);
    return file;
  };
  const notPem = await write("notes.txt", "just some text\n");
  await assertKeyError(
    readPrivateKey(notPem),
    notPem,
    /is not a PEM private key .*; generate one with: engram mcp keys generate/,
  );
  const encrypted = await write(
    "enc.pem",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
  );
  await assertKeyError(
    readPrivateKey(encrypted),
    encrypted,
    /is encrypted; decrypt a copy first: openssl pkey -in/,
  );
  const publicKey = await write(
    "pub.pem",
    "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
  );
  await assertKeyError(
    readPrivateKey(publicKey),
    publicKey,
    /holds a "PUBLIC KEY" block, not an Ed25519 PKCS#8 "PRIVATE KEY"/,
  );
  const damaged = await write(
    "damaged.pem",
    "-----BEGIN PRIVATE KEY-----\nnot*base64\n-----END PRIVATE KEY-----\n",
  );
  await assertKeyError(readPrivateKey(damaged), damaged, /has a damaged PEM body \(not base64\)/);
  const truncated = await write(
    "trunc.pem",
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n",
  );
  await assertKeyError(
    readPrivateKey(truncated),
    truncated,
    /does not hold an Ed25519 private key/,
  );
  await assertKeyError(
    readPrivateKey(`${dir.path}/missing.pem`),
    `${dir.path}/missing.pem`,
    /does not exist; pass the private key written by engram mcp keys generate$/,
  );
});

Deno.test({
  name: "malformed key files: an RSA or X25519 key from openssl is refused as not Ed25519",
  ignore: !HAS_OPENSSL,
  async fn() {
    await using dir = await tempDir();
    await sh("openssl genpkey -algorithm x25519 -out x.pem 2>/dev/null", dir.path);
    await assertKeyError(
      readPrivateKey(`${dir.path}/x.pem`),
      `${dir.path}/x.pem`,
      /does not hold an Ed25519 private key/,
    );
    await sh(
      "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem 2>/dev/null",
      dir.path,
    );
    await assertKeyError(
      readPrivateKey(`${dir.path}/ec.pem`),
      `${dir.path}/ec.pem`,
      /does not hold an Ed25519 private key/,
    );
  },
});

Deno.test({
  name:
    "openssl: a reviewer's key and signature, made with the documented commands, verify in engram",
  ignore: !HAS_OPENSSL,
  async fn() {
    await using dir = await tempDir();
    // The commands of docs/upstream.md#with-openssl, verbatim.
    const entry = await sh(
      [
        "openssl genpkey -algorithm ed25519 -out reviewer.pem && chmod 600 reviewer.pem",
        'echo "ed25519:$(openssl pkey -in reviewer.pem -pubout -outform DER | tail -c 32 | openssl base64 -A)"',
      ].join("\n"),
      dir.path,
    );
    // A manifest v2 with a ${VAR} reference and a literal value, as the recipe's reviewer has it.
    const server = stdioServer({
      name: "files",
      command: "npx",
      args: ["-y", "pkg"],
      env: { API_KEY: "${PKG_API_KEY}", LOG_LEVEL: "info" },
    });
    const canonical = canonicalJson(launchManifest(server));
    const signature = await sh(
      [
        `printf 'sha256:%s' "$(printf '%s' '${canonical}' | openssl dgst -sha256 -r | cut -d' ' -f1)" > digest.txt`,
        "openssl pkeyutl -sign -inkey reviewer.pem -rawin -in digest.txt | openssl base64 -A; echo",
      ].join("\n"),
      dir.path,
    );
    const digest = await manifestDigest(server);
    assert.equal(await Deno.readTextFile(`${dir.path}/digest.txt`), digest);
    assert.match(entry, REVIEW_KEY);
    assert.equal(await findSigner(digest, { signature, reviewKeys: [entry] }), entry);
    // The same PEM works with engram's signing, giving the same (deterministic) signature.
    const signer = await readPrivateKey(`${dir.path}/reviewer.pem`);
    assert.equal(signer.reviewKey, entry);
    assert.equal(await signDigest(digest, signer), signature);
  },
});

Deno.test({
  name:
    "openssl: a key from engram mcp keys generate works with openssl, and openssl verifies engram's signature",
  ignore: !HAS_OPENSSL,
  async fn() {
    await using dir = await tempDir();
    const { reviewKey } = await generateReviewKey(`${dir.path}/engram.pem`);
    const fromOpenssl = await sh(
      'echo "ed25519:$(openssl pkey -in engram.pem -pubout -outform DER | tail -c 32 | openssl base64 -A)"',
      dir.path,
    );
    assert.equal(fromOpenssl, reviewKey);
    const signature = await signDigest(DIGEST, await readPrivateKey(`${dir.path}/engram.pem`));
    await Deno.writeFile(
      `${dir.path}/sig.bin`,
      Uint8Array.from(atob(signature), (c) => c.charCodeAt(0)),
    );
    const verified = await sh(
      [
        `printf '%s' '${DIGEST}' > digest.txt`,
        "openssl pkey -in engram.pem -pubout -out pub.pem",
        "openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in digest.txt -sigfile sig.bin",
      ].join("\n"),
      dir.path,
    );
    assert.match(verified, /Signature Verified Successfully/);
  },
});

Deno.test("parsePrivateKey accepts CRLF line ends and surrounding text (as editors and mail leave it)", async () => {
  await using dir = await tempDir();
  const { reviewKey } = await generateReviewKey(`${dir.path}/k.pem`);
  const pem = await Deno.readTextFile(`${dir.path}/k.pem`);
  const signer = await parsePrivateKey(
    `Reviewer key:\r\n${pem.replaceAll("\n", "\r\n")}\r\n`,
    "pasted",
  );
  assert.equal(signer.reviewKey, reviewKey);
});

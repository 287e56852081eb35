/**
 * @module The secret key that seals upstream OAuth tokens: ENGRAM_SECRET_KEY when set (a malformed
 * one refused with how to make one), else the data directory's key file — created with mode 0600
 * only when first needed, refused when others can read it, read back the same by a racing process.
 */
import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { secretKeySource } from "../../src/config/secret_key.ts";
import { EngramError } from "../../src/core/errors.ts";
import { tempDir } from "../helpers.ts";

const KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

Deno.test("secret key: ENGRAM_SECRET_KEY is used as given, and no key file is written", async () => {
  await using dir = await tempDir();
  const source = secretKeySource(envFrom({ ENGRAM_SECRET_KEY: KEY }), dir.path);
  assert.equal(source.where, "ENGRAM_SECRET_KEY");
  const key = await source.readOrCreate();
  assert.deepEqual(key.bytes, new Uint8Array(32).fill(7));
  await assert.rejects(Deno.stat(`${dir.path}/secret.key`), Deno.errors.NotFound);
});

Deno.test("secret key: a malformed ENGRAM_SECRET_KEY is refused, saying what is wrong and how to make one", async () => {
  await using dir = await tempDir();
  const cases: [string, string][] = [
    ["not base64!", "text that is not base64"],
    [btoa("sixteen bytes!!!"), "16 bytes"],
  ];
  for (const [value, got] of cases) {
    const source = secretKeySource(envFrom({ ENGRAM_SECRET_KEY: value }), dir.path);
    await assert.rejects(source.read(), (e: EngramError) => {
      assert.equal(e.code, "invalid_argument");
      assert.equal(
        e.message,
        `ENGRAM_SECRET_KEY is malformed: it must be the base64 of 32 random bytes, got ${got}; make one with: openssl rand -base64 32`,
      );
      return true;
    });
  }
});

Deno.test("secret key: the key file is made on first need, mode 0600, and read back by everyone", async () => {
  await using dir = await tempDir();
  const source = secretKeySource(envFrom({}), dir.path);
  assert.equal(source.where, `${dir.path}/secret.key`);
  assert.equal(await source.read(), null, "nothing is created by reading");
  const [a, b] = await Promise.all([source.readOrCreate(), source.readOrCreate()]);
  assert.deepEqual(a.bytes, b.bytes, "a racing creator reads the winner's key");
  assert.equal(a.bytes.length, 32);
  assert.equal((await Deno.stat(`${dir.path}/secret.key`)).mode! & 0o777, 0o600);
  assert.deepEqual((await source.read())?.bytes, a.bytes);
  const left = [...Deno.readDirSync(dir.path)].map((e) => e.name);
  assert.deepEqual(left, ["secret.key"], "no temporary file is left");
});

Deno.test("secret key: a key file others can read, or a malformed one, is refused naming the file", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/secret.key`;
  await Deno.writeTextFile(file, `${KEY}\n`, { mode: 0o600 });
  await Deno.chmod(file, 0o644);
  const source = secretKeySource(envFrom({}), dir.path);
  await assert.rejects(source.read(), (e: EngramError) => {
    assert.equal(e.code, "forbidden");
    assert.equal(
      e.message,
      `the key file ${file} can be read by other users (mode 644); make it private with: chmod 600 ${file}`,
    );
    return true;
  });
  await Deno.chmod(file, 0o600);
  await Deno.writeTextFile(file, "short\n");
  await assert.rejects(
    source.read(),
    new RegExp(`the key file ${file} is malformed: it must be the base64 of 32 random bytes`),
  );
});

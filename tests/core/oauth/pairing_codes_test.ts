import assert from "node:assert/strict";
import { EngramError } from "../../../src/core/errors.ts";
import {
  normalizePairingCode,
  PAIRING_TTL_MS,
  PairingCodes,
} from "../../../src/core/oauth/pairing_codes.ts";
import { MINUTE, openServer } from "./_fixture.ts";

Deno.test("create: XXXX-XXXX-XXXX-XXXX in Crockford base32, valid ten minutes, stored only as a hash", async () => {
  await using f = await openServer();
  const pairing = new PairingCodes(f.storage, { now: f.clock.now });
  const { code, record } = await pairing.create({ tier: "write", brains: ["default", "default"] });
  assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
  assert.match(record.id, /^pair_[0-9A-Z]{26}$/);
  assert.deepEqual(record.brains, [f.brain.id]);
  assert.equal(record.tier, "write");
  assert.equal(Date.parse(record.expires_at) - Date.parse(record.created_at), PAIRING_TTL_MS);
  assert.equal(PAIRING_TTL_MS, 10 * MINUTE);
  assert.ok(!("code_hash" in record));
  f.storage.close();
  const bytes = new TextDecoder("latin1").decode(await Deno.readFile(f.file));
  assert.ok(!bytes.includes(code.replaceAll("-", "")), "the code is not in the database");
});

Deno.test("create refuses an unknown brain (not_found) and a bad tier (invalid_argument)", async () => {
  await using f = await openServer();
  const pairing = new PairingCodes(f.storage, { now: f.clock.now });
  await assert.rejects(
    pairing.create({ tier: "read", brains: ["nope"] }),
    (err: unknown) =>
      err instanceof EngramError && err.code === "not_found" &&
      /brain "nope" not found; list brains with: engram brains list/.test(err.message),
  );
  await assert.rejects(
    // deno-lint-ignore no-explicit-any
    pairing.create({ tier: "owner" as any }),
    (err: unknown) => err instanceof EngramError && err.code === "invalid_argument",
  );
});

Deno.test("consume: once, before it expires; a typo-tolerant reading of the code", async () => {
  await using f = await openServer();
  const pairing = new PairingCodes(f.storage, { now: f.clock.now });
  const { code, record } = await pairing.create({ tier: "read" });
  f.clock.advance(10 * MINUTE - 1);
  assert.equal((await pairing.consume(`  ${code.toLowerCase()} `))?.id, record.id);
  assert.equal(await pairing.consume(code), null, "used");
  const late = await pairing.create({ tier: "read" });
  f.clock.advance(10 * MINUTE);
  assert.equal(await pairing.consume(late.code), null, "expired");
  assert.equal(await pairing.consume("not a code"), null);
});

Deno.test("normalizePairingCode: any case, dashes or spaces; O as 0, I and L as 1; else null", () => {
  assert.equal(normalizePairingCode("abcd-efgh-jkmn-pqrs"), "ABCDEFGHJKMNPQRS");
  assert.equal(normalizePairingCode("OIL0 1234 5678 9ABC"), "0110123456789ABC");
  assert.equal(normalizePairingCode("ABCD-EFGH-JKMN-PQR"), null, "15 characters");
  assert.equal(normalizePairingCode("ABCD-EFGH-JKMN-PQRU"), null, "U is not Crockford");
  assert.equal(normalizePairingCode(""), null);
});

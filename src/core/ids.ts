/** @module Opaque, time-ordered identifiers (ULID bodies with a type prefix). */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A 26-character Crockford base32 ULID for the given time. */
export function ulid(now: number = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = "";
  for (let i = 0; i < 16; i++) rand += ALPHABET[bytes[i] % 32];
  return time + rand;
}

/** A new id such as `doc_01J...`. */
export function newId(
  prefix: "brn" | "doc" | "ver" | "chk" | "ses" | "msg" | "aud" | "job" | "tok",
): string {
  return `${prefix}_${ulid()}`;
}

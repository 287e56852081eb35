/** @module Content hashing shared by documents and audit digests. */
import { createHash } from "node:crypto";

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

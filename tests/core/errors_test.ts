import assert from "node:assert/strict";
import { EngramError, toEngramError } from "../../src/core/errors.ts";

Deno.test("toEngramError keeps an EngramError and wraps anything else as internal, message once", () => {
  const own = new EngramError("not_found", "document /a.md not found");
  assert.equal(toEngramError(own), own);
  const cause = new TypeError("boom");
  const wrapped = toEngramError(cause);
  assert.equal(wrapped.code, "internal");
  // The CLI prints `engram: internal: boom`, not `internal: internal error: boom`.
  assert.equal(wrapped.message, "boom");
  assert.equal(wrapped.cause, cause);
  assert.equal(toEngramError("plain").message, "plain");
});

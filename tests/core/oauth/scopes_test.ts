import assert from "node:assert/strict";
import { TIER_SCOPES } from "../../../src/core/oauth/authorization_types.ts";
import { requestedTier, scopeOf } from "../../../src/core/oauth/scopes.ts";

Deno.test("requestedTier: the highest tier scope named; others ignored; none is null", () => {
  assert.equal(requestedTier(null), null);
  assert.equal(requestedTier(""), null);
  assert.equal(requestedTier("openid offline_access"), null);
  assert.equal(requestedTier("engram:read"), "read");
  assert.equal(requestedTier("offline_access engram:write"), "write");
  assert.equal(requestedTier("engram:admin engram:read engram:write"), "admin");
  assert.equal(requestedTier("engram:Write"), null, "scopes are case-sensitive");
});

Deno.test("scopeOf names each tier's scope", () => {
  assert.deepEqual(TIER_SCOPES, {
    read: "engram:read",
    write: "engram:write",
    admin: "engram:admin",
  });
  assert.equal(scopeOf("write"), "engram:write");
});

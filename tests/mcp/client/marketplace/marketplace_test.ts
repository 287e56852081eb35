/**
 * @module The marketplace catalogue (marketplace.json): every entry validates, is pinned, and
 * becomes a valid server entry once its parameters are given — disabled, user_added and pending.
 */
import assert from "node:assert/strict";
import { EngramError } from "../../../../src/core/errors.ts";
import {
  marketplace,
  marketplaceConfig,
} from "../../../../src/mcp/client/marketplace/marketplace.ts";

Deno.test("every catalogue entry is pinned and fills into a disabled, pending, user_added server", () => {
  const { servers } = marketplace();
  assert.ok(
    servers.length >= 5,
    `the catalogue lists ${servers.length} servers; expected 5 or more`,
  );
  assert.equal(new Set(servers.map((s) => s.name)).size, servers.length, "names are unique");
  for (const entry of servers) {
    const values = Object.fromEntries(
      Object.keys(entry.parameters).map((k) => [k, `/srv/${k.toLowerCase()}`]),
    );
    const config = marketplaceConfig(entry, { values });
    assert.equal(config.enabled, false);
    assert.equal(config.client_consent, "pending");
    assert.equal(config.trust, "user_added");
    assert.ok(config.transport === "stdio");
    const pinned = config.args.find((a) => a.includes(`${entry.package}@`));
    assert.equal(
      pinned,
      `${entry.package}@${entry.version}`,
      `${entry.name} runs its pinned version`,
    );
    assert.ok(!JSON.stringify(config).includes("${"), `${entry.name}: every parameter is filled`);
  }
});

Deno.test("marketplaceConfig names a name the config would refuse", () => {
  const entry = marketplace().servers.find((s) => s.name === "memory")!;
  assert.throws(() => marketplaceConfig(entry, { as: "has space" }), (e: unknown) => {
    assert.ok(e instanceof EngramError);
    assert.equal(e.code, "invalid_argument");
    assert.match(
      e.message,
      /^memory as configured is not a valid server entry: name must be 1-32 .*\(choose the name with --as\)$/,
    );
    return true;
  });
});

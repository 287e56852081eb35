/**
 * @module The UpstreamCredentialStore contract: one row per upstream server (names compared without
 * case), patched field by field, sealed text kept as given, and a refresh lease that expires by the
 * storage's clock and guards the writes made under it (the cases move the clock; nothing sleeps).
 */
import assert from "node:assert/strict";
import { type ContractBackend, withBrain } from "./backend.ts";

/** Registers the UpstreamCredentialStore cases for `backend`. */
export function upstreamCredentialsContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} UpstreamCredentialStore: ${name}`, fn);

  test("a new row starts as needs_login with nothing kept, and is found without case", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreamCredentials;
    assert.equal(await store.findCredentials("docs"), null);
    assert.equal(await store.updateCredentials("Docs", { scope: "read" }), true);
    assert.deepEqual(await store.findCredentials("docs"), {
      server: "Docs",
      key_id: null,
      client: null,
      client_kind: null,
      tokens: null,
      expires_at: null,
      refreshable: false,
      scope: "read",
      required_scope: null,
      discovery: null,
      status: "needs_login",
      detail: null,
      logged_in_at: null,
      refreshed_at: null,
      updated_at: f.clock.iso(),
    });
  });

  test("a patch sets only the fields it names; null clears one; everything round-trips", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreamCredentials;
    const discovery = { authorization_server: "https://as.example/", metadata: { a: [1, "b"] } };
    await store.updateCredentials("docs", {
      key_id: "k1",
      client: "sealed-client",
      client_kind: "dynamic",
      tokens: "sealed-tokens",
      expires_at: f.clock.iso(3_600_000),
      refreshable: true,
      scope: "read write",
      required_scope: "admin",
      discovery,
      status: "logged_in",
      detail: "fine",
      logged_in_at: f.clock.iso(),
      refreshed_at: null,
    });
    f.clock.advance(1_000);
    await store.updateCredentials("docs", { status: "refresh_failing", detail: null });
    const row = await store.findCredentials("DOCS");
    assert.ok(row);
    assert.equal(row.status, "refresh_failing");
    assert.equal(row.detail, null, "null clears");
    assert.equal(row.tokens, "sealed-tokens", "unnamed fields keep their value");
    assert.equal(row.client_kind, "dynamic");
    assert.equal(row.refreshable, true);
    assert.deepEqual(row.discovery, discovery);
    assert.equal(row.updated_at, f.clock.iso());
    await store.updateCredentials("docs", { refreshable: false, tokens: null });
    const cleared = await store.findCredentials("docs");
    assert.equal(cleared?.refreshable, false);
    assert.equal(cleared?.tokens, null);
  });

  test("listCredentials gives every row by name; removeCredentials says whether one went", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreamCredentials;
    await store.updateCredentials("zeta", {});
    await store.updateCredentials("Alpha", {});
    assert.deepEqual((await store.listCredentials()).map((r) => r.server), ["Alpha", "zeta"]);
    assert.equal(await store.removeCredentials("ALPHA"), true);
    assert.equal(await store.removeCredentials("alpha"), false);
    assert.deepEqual((await store.listCredentials()).map((r) => r.server), ["zeta"]);
  });

  test("the refresh lease is held by one holder until it expires, and needs a row", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreamCredentials;
    assert.equal(await store.acquireRefreshLease("docs", "a", 10_000), false, "no row");
    await store.updateCredentials("docs", {});
    assert.equal(await store.acquireRefreshLease("docs", "a", 10_000), true);
    assert.equal(await store.acquireRefreshLease("DOCS", "b", 10_000), false, "held by a");
    assert.equal(await store.acquireRefreshLease("docs", "a", 10_000), true, "re-entrant");
    f.clock.advance(10_001);
    assert.equal(await store.acquireRefreshLease("docs", "b", 10_000), true, "a's expired");
    await store.releaseRefreshLease("docs", "a");
    assert.equal(
      await store.acquireRefreshLease("docs", "c", 10_000),
      false,
      "a cannot release b's",
    );
    await store.releaseRefreshLease("docs", "b");
    assert.equal(await store.acquireRefreshLease("docs", "c", 10_000), true, "released");
  });

  test("a write under a lease happens only while the lease is held", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreamCredentials;
    await store.updateCredentials("docs", { tokens: "first" });
    assert.equal(
      await store.updateCredentials("docs", { tokens: "x" }, { leaseHolder: "a" }),
      false,
      "no lease",
    );
    assert.equal(await store.acquireRefreshLease("docs", "a", 5_000), true);
    assert.equal(
      await store.updateCredentials("docs", { tokens: "second" }, { leaseHolder: "a" }),
      true,
    );
    f.clock.advance(5_001);
    assert.equal(await store.acquireRefreshLease("docs", "b", 5_000), true, "taken over");
    assert.equal(
      await store.updateCredentials("docs", { tokens: "stale" }, { leaseHolder: "a" }),
      false,
      "a outlived its lease",
    );
    assert.equal((await store.findCredentials("docs"))?.tokens, "second");
    assert.equal(
      await store.updateCredentials("nobody", { tokens: "x" }, { leaseHolder: "a" }),
      false,
    );
    assert.equal(await store.findCredentials("nobody"), null, "no row created under a lease");
  });
}

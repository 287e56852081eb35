/**
 * @module The UpstreamStore contract: imported servers with their definitions, state-only rows for
 * servers a config file defines, names unique without regard to case, and last-status records.
 */
import assert from "node:assert/strict";
import { EngramError } from "../../../src/core/errors.ts";
import type { NewUpstream } from "../../../src/core/ports/upstream_store.ts";
import { type ContractBackend, withBrain } from "./backend.ts";

const IMPORTED: NewUpstream = {
  name: "Files",
  definition: { transport: "stdio", command: "npx", args: ["-y", "pkg"] },
  origin: "import",
  imported_from: "/home/me/.mcp.json",
  enabled: false,
  client_consent: "pending",
};

/** Registers the UpstreamStore cases for `backend`. */
export function upstreamStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} UpstreamStore: ${name}`, fn);

  test("an imported server is stored with its definition and found by name in any case", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreams;
    const added = await store.addUpstream(IMPORTED);
    assert.deepEqual(added, {
      ...IMPORTED,
      last: null,
      created_at: f.clock.iso(),
      updated_at: f.clock.iso(),
    });
    assert.deepEqual(await store.findUpstream("files"), added);
    assert.deepEqual(await store.listUpstreams(), [added]);
    assert.equal(await store.findUpstream("nope"), null);
  });

  test("a name taken in any case is a conflict, and nothing changes", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreams;
    await store.addUpstream(IMPORTED);
    await assert.rejects(
      store.addUpstream({ ...IMPORTED, name: "FILES", origin: "marketplace" }),
      (err: EngramError) => err.code === "conflict" && /"Files" already exists/.test(err.message),
    );
    assert.equal((await store.listUpstreams()).length, 1);
    assert.equal((await store.findUpstream("files"))!.origin, "import");
  });

  test("state of a config-file server lives in a state-only row; patches change only what they name", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreams;
    const created = f.clock.iso();
    const row = await store.setUpstreamState("docs", { client_consent: "approved" });
    assert.equal(row.definition, null);
    assert.equal(row.origin, null);
    assert.equal(row.enabled, null, "not set here: the definition decides");
    assert.equal(row.client_consent, "approved");
    f.clock.advance(1000);
    const later = await store.setUpstreamState("docs", { enabled: false });
    assert.equal(later.client_consent, "approved");
    assert.equal(later.enabled, false);
    assert.equal(later.created_at, created);
    assert.equal(later.updated_at, f.clock.iso());
  });

  test("an imported definition is replaced; a state-only row has none to replace", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreams;
    await store.addUpstream(IMPORTED);
    const signed = { ...IMPORTED.definition, manifest_digest: "sha256:" + "a".repeat(64) };
    assert.deepEqual((await store.setUpstreamDefinition("files", signed)).definition, signed);
    await store.setUpstreamState("docs", { enabled: true });
    await assert.rejects(
      store.setUpstreamDefinition("docs", signed),
      (err: EngramError) => err.code === "not_found",
    );
  });

  test("the last status is recorded and read back; removing a row forgets it", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreams;
    await store.addUpstream(IMPORTED);
    const last = { status: "down", error: "exited with code 1", at: f.clock.iso() };
    await store.recordUpstreamStatus("files", last);
    await store.recordUpstreamStatus("yaml-only", { status: "ok", error: null, at: last.at });
    assert.deepEqual((await store.findUpstream("files"))!.last, last);
    assert.equal((await store.findUpstream("yaml-only"))!.last!.status, "ok");
    assert.equal(await store.removeUpstream("FILES"), true);
    assert.equal(await store.removeUpstream("files"), false);
    assert.deepEqual((await store.listUpstreams()).map((r) => r.name), ["yaml-only"]);
  });

  test("review keys trusted through the database: trusted once, listed oldest first, removed", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.upstreams;
    const first = { key: "ed25519:" + "A".repeat(43) + "=", file: "/k/a.pem", added_by: "ada" };
    const second = { key: "ed25519:" + "B".repeat(43) + "=", file: null, added_by: "bob" };
    assert.deepEqual(await store.listTrustedReviewKeys(), []);
    const added = await store.trustReviewKey(first);
    assert.deepEqual(added, { ...first, added_at: f.clock.iso() });
    f.clock.advance(1000);
    await store.trustReviewKey(second);
    // Trusting it again keeps the first row: when and by whom it was first trusted.
    assert.deepEqual(await store.trustReviewKey({ ...first, added_by: "eve" }), added);
    assert.deepEqual((await store.listTrustedReviewKeys()).map((k) => k.key), [
      first.key,
      second.key,
    ]);
    assert.equal(await store.removeTrustedReviewKey(first.key), true);
    assert.equal(await store.removeTrustedReviewKey(first.key), false);
    assert.deepEqual((await store.listTrustedReviewKeys()).map((k) => k.added_by), ["bob"]);
  });
}

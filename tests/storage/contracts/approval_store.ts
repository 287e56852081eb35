/**
 * @module The ApprovalStore contract: one approval per server, kind and name (replaced, never
 * doubled), server names without case, a whole-set replace, and sightings that follow the listing.
 */
import assert from "node:assert/strict";
import type { CapabilityApproval } from "../../../src/core/ports/approval_store.ts";
import { type ContractBackend, withBrain } from "./backend.ts";

function approval(name: string, extra: Partial<CapabilityApproval> = {}): CapabilityApproval {
  return {
    server: "Files",
    kind: "tool",
    name,
    state: "approved",
    pin: "sha256:" + "1".repeat(64),
    definition: { name, description: "d" },
    identity: "sha256:" + "2".repeat(64),
    expose_tier: "read",
    approved_by: "alice",
    approved_at: "2030-01-01T00:00:00.000Z",
    revoked_at: null,
    ...extra,
  };
}

/** Registers the ApprovalStore cases for `backend`. */
export function approvalStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} ApprovalStore: ${name}`, fn);

  test("an approval is stored whole, found by server in any case, and replaced by a newer one", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.approvals;
    assert.deepEqual(await store.putApproval(approval("read")), approval("read"));
    assert.deepEqual(
      await store.findApproval({ server: "files", kind: "tool", name: "read" }),
      approval("read"),
    );
    assert.equal(await store.findApproval({ server: "files", kind: "prompt", name: "read" }), null);
    const revoked = approval("read", { state: "revoked", revoked_at: "2030-01-02T00:00:00.000Z" });
    await store.putApproval(revoked);
    assert.deepEqual(await store.listApprovals("FILES"), [revoked]);
    await store.putApproval(approval("a", { server: "Other" }));
    assert.deepEqual((await store.listApprovals()).map((a) => `${a.server}/${a.name}`), [
      "Files/read",
      "Other/a",
    ]);
    assert.equal(await store.deleteApproval({ server: "files", kind: "tool", name: "read" }), true);
    assert.equal(
      await store.deleteApproval({ server: "files", kind: "tool", name: "read" }),
      false,
    );
  });

  test("replaceApprovals swaps the whole set at once", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.approvals;
    await store.putApproval(approval("old"));
    await store.replaceApprovals([approval("x"), approval("y", { expose_tier: null })]);
    assert.deepEqual((await store.listApprovals()).map((a) => [a.name, a.expose_tier]), [
      ["x", "read"],
      ["y", null],
    ]);
  });

  test("an operator's exposed name (--as) is kept, replaced, and absent when unset", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.approvals;
    const named = approval("echo", { expose_as: "mcp_my_echo" });
    assert.deepEqual(await store.putApproval(named), named);
    assert.deepEqual(await store.listApprovals("files"), [named]);
    await store.putApproval(approval("echo"));
    const [plain] = await store.listApprovals("files");
    assert.equal("expose_as" in plain, false, "unset reads back as absent, as from a lockfile");
  });

  test("sightings follow the listing: kept first_seen_at, updated definitions, dropped vanished ones", async () => {
    await using f = await withBrain(backend);
    const store = f.storage.approvals;
    const first = f.clock.iso();
    await store.recordSightings("files", [
      { kind: "tool", name: "a", hash: "h1", definition: { name: "a" } },
      { kind: "tool", name: "b", hash: "h2", definition: { name: "b" } },
    ], first);
    f.clock.advance(60_000);
    const later = f.clock.iso();
    await store.recordSightings("files", [
      { kind: "tool", name: "a", hash: "h3", definition: { name: "a", description: "new" } },
    ], later);
    const seen = await store.listSightings("FILES");
    assert.deepEqual(seen, [{
      server: "files",
      kind: "tool",
      name: "a",
      hash: "h3",
      definition: { name: "a", description: "new" },
      first_seen_at: first,
      last_seen_at: later,
    }]);
    assert.deepEqual(await store.listSightings("other"), []);
  });
}

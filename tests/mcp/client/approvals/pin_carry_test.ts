/**
 * @module Carrying approvals over from launch manifest v1: a pin made against the v1 digest of the
 * server as configured now is re-pinned to its v2 identity, its definition kept; anything else
 * (another launch, a pin that is not of its definition, an http server) is left to lapse.
 */
import assert from "node:assert/strict";
import { HttpServerSchema, StdioServerSchema } from "../../../../src/config/mcp_servers.ts";
import type { CapabilityApproval } from "../../../../src/core/ports/approval_store.ts";
import {
  capabilityDefinition,
  pinCapability,
  serverIdentity,
} from "../../../../src/mcp/client/approvals/capability_pins.ts";
import { capabilityStates } from "../../../../src/mcp/client/approvals/capability_states.ts";
import {
  carriedPins,
  signedUnderV2,
  v1Identity,
  withCarriedPins,
} from "../../../../src/mcp/client/approvals/pin_carry.ts";
import { signed, signedV1, testSigner } from "../launch_setup.ts";
import { manifestDigestV1 } from "../../../../src/mcp/client/launch/launch_manifest.ts";

const SERVER = StdioServerSchema.parse({
  name: "files",
  transport: "stdio",
  command: "npx",
  args: ["-y", "pkg"],
  env: { LOG_LEVEL: "info" },
});
const TOOL = capabilityDefinition("tool", {
  name: "read_file",
  description: "Reads a file.",
  inputSchema: { type: "object" },
});

/** An approval of TOOL pinned to `identity`, as an engram of that time stored it. */
async function approval(identity: string, server = "files"): Promise<CapabilityApproval> {
  const pinned = await pinCapability(TOOL, identity);
  return {
    server,
    kind: "tool",
    name: "read_file",
    state: "approved",
    pin: pinned.pin,
    definition: pinned.definition,
    identity,
    expose_tier: "read",
    approved_by: "ana",
    approved_at: "2026-01-01T00:00:00.000Z",
    revoked_at: null,
  };
}

Deno.test("pin carry: a v1 pin of an unchanged launch moves to the v2 identity, definition and the rest kept", async () => {
  const v1 = await manifestDigestV1(SERVER);
  assert.equal(await v1Identity(SERVER), v1);
  const old = await approval(v1);
  const [carried] = await carriedPins([old], [SERVER]);
  const v2 = await serverIdentity(SERVER);
  assert.notEqual(v2, v1);
  assert.deepEqual(carried, { ...old, identity: v2, pin: (await pinCapability(TOOL, v2)).pin });
  // The live listing of the same definition is approved against the carried pin, not before.
  const live = [await pinCapability(TOOL, v2)];
  assert.equal((await capabilityStates("files", { live, approvals: [old] }))[0].state, "changed");
  assert.equal(
    (await capabilityStates("files", { live, approvals: [carried] }))[0].state,
    "approved",
  );
  // A definition the server lists differently still lapses after the carry.
  const edited = [
    await pinCapability(capabilityDefinition("tool", { ...TOOL.definition, description: "x" }), v2),
  ];
  assert.equal(
    (await capabilityStates("files", { live: edited, approvals: [carried] }))[0].state,
    "changed",
  );
});

Deno.test("pin carry: another launch, a forged pin, an unknown server and an http server are not carried", async () => {
  const v1 = await manifestDigestV1(SERVER);
  // The launch changed since the pin (other args): its v1 digest is not the approval's identity.
  const relaunched = { ...SERVER, args: ["-y", "other"] };
  assert.deepEqual(await carriedPins([await approval(v1)], [relaunched]), []);
  // A pin that is not the pin of its own definition under v1.
  const forged = { ...(await approval(v1)), pin: `sha256:${"0".repeat(64)}` };
  assert.deepEqual(await carriedPins([forged], [SERVER]), []);
  assert.deepEqual(await carriedPins([await approval(v1, "gone")], [SERVER]), []);
  const http = HttpServerSchema.parse({ name: "files", transport: "http", url: "https://x.test" });
  assert.equal(await v1Identity(http), null);
  assert.deepEqual(await carriedPins([await approval(await serverIdentity(http))], [http]), []);
  // Already v2: nothing to carry; withCarriedPins keeps order and leaves the rest as they are.
  const current = await approval(await serverIdentity(SERVER));
  const mixed = await withCarriedPins([current, await approval(v1, "FILES")], [SERVER]);
  assert.equal(mixed.carried.length, 1, "server names compare without case");
  assert.deepEqual(mixed.approvals[0], current);
  assert.equal(mixed.approvals[1].identity, await serverIdentity(SERVER));
});

Deno.test("pin carry: only launches signed under v2 by a counted key qualify (what export carries)", async () => {
  const operator = await testSigner();
  const stranger = await testSigner();
  const keys = [operator.reviewKey];
  const v2 = await signed(SERVER, operator);
  const v1Only = await signedV1(SERVER, operator);
  const changed = { ...v2, env: { LOG_LEVEL: "debug" } };
  const http = HttpServerSchema.parse({ name: "h", transport: "http", url: "https://x.test/mcp" });
  assert.deepEqual(
    (await signedUnderV2([v2, v1Only, changed, await signed(SERVER, stranger), SERVER, http], keys))
      .map((s) => s.manifest_digest),
    [v2.manifest_digest],
  );
});

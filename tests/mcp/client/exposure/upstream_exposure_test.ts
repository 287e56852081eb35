/**
 * @module UpstreamExposure against a real fixture upstream: an upstream that changes a tool without
 * saying so (no list_changed) is caught once its listing is older than `relistMs` — the approval
 * holds only for the definition the upstream lists, not the one it listed once — and a flood of
 * list_changed is answered with one listing at a time.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../../../src/core/logger.ts";
import { pinListed, serverIdentity } from "../../../../src/mcp/client/approvals/capability_pins.ts";
import type { ExposurePlan } from "../../../../src/mcp/client/exposure/exposure_plan.ts";
import { UpstreamConnections } from "../../../../src/mcp/client/session/upstream_connections.ts";
import { UpstreamExposure } from "../../../../src/mcp/client/exposure/upstream_exposure.ts";
import { fixtureServer, rejection, textOf, upstreamWorld } from "../upstream_setup.ts";

/** Exposure of `plan` over `connections`: no polling, listings re-read after 1 s of `now`. */
function openExposure(
  connections: UpstreamConnections,
  plan: ExposurePlan,
  now: () => number,
): Promise<UpstreamExposure> {
  return UpstreamExposure.open({
    loadPlan: () => Promise.resolve(plan),
    catalog: () => Promise.resolve([]),
    connections: () => Promise.resolve(connections),
    sightings: { recordSightings: () => Promise.resolve() },
    logger: silentLogger,
    pollMs: 0,
    relistMs: 1000,
    now,
  });
}

Deno.test("exposure: a silent change of a tool is refused once the listing is read again", async () => {
  await using world = await upstreamWorld();
  const server = await fixtureServer(world.signer, "files", "well_behaved");
  const connections = new UpstreamConnections([server], world.facts);
  try {
    const session = await connections.session("files");
    const identity = await serverIdentity(server);
    const listed = await session.listTools();
    const tool = (name: string) => listed.find((t) => t.name === name)!;
    const exposed = async (name: string) => {
      const pinned = await pinListed("tool", tool(name), identity);
      return {
        exposed: `mcp_files_${name}`,
        server: "files",
        tool: name,
        tier: "read" as const,
        trust: "user_added" as const,
        definition: pinned.definition,
        pin: pinned.pin,
      };
    };
    const plan: ExposurePlan = {
      tools: [await exposed("echo"), await exposed("change_definitions")],
      prompts: [],
      templates: [],
      hidden: [],
    };
    let now = 0;
    const exposure = await openExposure(connections, plan, () => now);
    try {
      const echo = plan.tools[0];
      assert.equal(textOf(await exposure.call(echo, { text: "a" })), "echo: a");
      await exposure.call(plan.tools[1], { changes: "description:echo", notify: false });
      // Within relistMs the listing read before the change still stands.
      now = 999;
      assert.equal(textOf(await exposure.call(echo, { text: "b" })), "echo: b");
      now = 1001;
      const refused = await rejection(exposure.call(echo, { text: "c" }));
      assert.equal(refused.code, "forbidden");
      assert.match(refused.message, /^upstream files changed tool echo since it was approved/);
    } finally {
      exposure.close();
    }
  } finally {
    await connections.closeAll();
  }
});

Deno.test("exposure: a flood of list_changed gets one tools/list at a time, not one each", async () => {
  await using world = await upstreamWorld();
  const server = await fixtureServer(world.signer, "files", "well_behaved");
  const connections = new UpstreamConnections([server], world.facts);
  try {
    const session = await connections.session("files");
    const plan: ExposurePlan = { tools: [], prompts: [], templates: [], hidden: [] };
    const exposure = await openExposure(connections, plan, () => 0);
    try {
      const before = JSON.parse(textOf(await session.callTool("stats"))).listings;
      // Fifty notifications at once, as a flooding upstream sends them.
      await Promise.all(Array.from({ length: 50 }, () => exposure.listChanged("files")));
      const after = JSON.parse(textOf(await session.callTool("stats"))).listings;
      assert.ok(after - before >= 1 && after - before <= 2, `${after - before} listings`);
      // A notification after the flood is looked at again.
      await exposure.listChanged("files");
      const later = JSON.parse(textOf(await session.callTool("stats"))).listings;
      assert.equal(later, after + 1);
    } finally {
      exposure.close();
    }
  } finally {
    await connections.closeAll();
  }
});

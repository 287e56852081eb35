/**
 * @module A server's own `request_timeout_ms`: it shortens the request timeout for that server,
 * and `mcp.request_timeout_ms` stays its ceiling (docs/upstream.md#server-entries).
 */
import assert from "node:assert/strict";
import { EngramError } from "../../../../src/core/errors.ts";
import type { LaunchFacts } from "../../../../src/mcp/client/launch/launch_rules.ts";
import { UpstreamSession } from "../../../../src/mcp/client/session/upstream_session.ts";
import { fixtureServer, rejection, upstreamWorld } from "../upstream_setup.ts";

/** The timeout a slow call of a session on `server` ran into, as its error says. */
async function timeoutOf(
  server: Awaited<ReturnType<typeof fixtureServer>>,
  options: { facts: LaunchFacts; ceiling: number },
): Promise<string> {
  const session = new UpstreamSession(server, {
    facts: options.facts,
    requestTimeoutMs: options.ceiling,
  });
  try {
    const error = await rejection(session.callTool("slow", { ms: 20_000 }));
    assert.ok(error instanceof EngramError, String(error));
    return /within (\d+) ms/.exec(error.message)?.[1] ?? error.message;
  } finally {
    await session.close();
  }
}

Deno.test("a server's request_timeout_ms is used below mcp.request_timeout_ms, and capped by it", async () => {
  await using world = await upstreamWorld();
  const short = await fixtureServer(world.signer, "short", "well_behaved", {
    config: { request_timeout_ms: 300 },
  });
  assert.equal(await timeoutOf(short, { facts: world.facts, ceiling: 15_000 }), "300");
  const long = await fixtureServer(world.signer, "long", "well_behaved", {
    config: { request_timeout_ms: 60_000 },
  });
  assert.equal(await timeoutOf(long, { facts: world.facts, ceiling: 400 }), "400");
});

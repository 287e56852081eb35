/**
 * @module The SDK Transport over engram's own server process: the SDK Client speaks through it,
 * it ends exactly once (close, or the process exiting), and every ending leaves no process.
 */
import assert from "node:assert/strict";
import { McpError } from "../../../../src/mcp/sdk.ts";
import { Client } from "../../../../src/mcp/sdk_client.ts";
import { ProcessTransport } from "../../../../src/mcp/client/transport/process_transport.ts";
import { startStdioServer } from "../../../../src/mcp/client/launch/stdio_process.ts";
import { goneWithin, token } from "../launch_setup.ts";
import { fixtureServer, leftovers, rejection, textOf, upstreamWorld } from "../upstream_setup.ts";

async function connected(fixture: string, args: string[]) {
  const world = await upstreamWorld();
  const mark = token();
  const server = await fixtureServer(world.signer, "t", fixture, { args, mark });
  const process = await startStdioServer(server, { facts: world.facts, graceMs: 500 });
  const transport = new ProcessTransport(process, { maxMessageBytes: 1024 * 1024 });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  let closes = 0;
  const inner = transport.onclose;
  transport.onclose = () => {
    closes++;
    inner?.();
  };
  return { world, mark, transport, client, closes: () => closes };
}

Deno.test("process transport: the SDK client works over it; close() ends it once and stops the process", async () => {
  const t = await connected("well_behaved", []);
  await using _world = t.world;
  assert.ok((await t.client.listTools()).tools.length > 0);
  assert.equal(
    textOf(await t.client.callTool({ name: "echo", arguments: { text: "x" } })),
    "echo: x",
  );
  assert.equal(t.transport.protocolVersion, "2025-11-25");
  await t.client.close();
  await t.transport.close();
  const end = await t.transport.ended;
  assert.equal(end.kind, "closed");
  assert.equal(end.exit.code, 0, "it exited on the end of stdin, politely");
  assert.equal(t.closes(), 1);
  assert.deepEqual(await goneWithin(`--seed ${t.mark}`, 2000), []);
  assert.deepEqual(leftovers([t.transport.process.pid]), []);
  await rejection(t.transport.send({ jsonrpc: "2.0", method: "ping", id: 99 }));
});

Deno.test("process transport: a crash ends it once, with the exit code; pending requests fail", async () => {
  const t = await connected("crashing", ["--when", "call", "--exit-code", "5"]);
  await using _world = t.world;
  const error = await rejection(t.client.callTool({ name: "crash", arguments: {} }));
  assert.ok(error instanceof McpError);
  assert.equal(error.code, -32000);
  const end = await t.transport.ended;
  assert.ok(end.kind === "exited" || end.kind === "stdout_ended", end.kind);
  assert.equal(end.exit.code, 5);
  await t.transport.close();
  assert.equal(t.closes(), 1);
  assert.match(
    t.transport.process.stderrText(),
    /crashing: exiting with code 5 during tools\/call/,
  );
  assert.deepEqual(await goneWithin(`--seed ${t.mark}`, 2000), []);
  assert.deepEqual(leftovers([t.transport.process.pid]), [], "reaped, not a zombie");
});

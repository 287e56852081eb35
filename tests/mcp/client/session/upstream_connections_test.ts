/**
 * @module The connection manager: lazy, reused sessions by name; unknown names; isolation (a
 * hanging, crashing, blocked or unreachable server never delays a healthy one); concurrent
 * discovery bounded per server; observer hooks; and closeAll leaving no process behind.
 */
import assert from "node:assert/strict";
import type { McpServerConfig } from "../../../../src/config/mcp_servers.ts";
import {
  type CallTrace,
  UpstreamConnections,
} from "../../../../src/mcp/client/session/upstream_connections.ts";
import type { StatusChange } from "../../../../src/mcp/client/session/upstream_session.ts";
import { startStreamableHttpUpstream } from "../../../fixtures/upstream/http_upstream.ts";
import { goneWithin, processesWith, token } from "../launch_setup.ts";
import {
  fixtureServer,
  leftovers,
  rejection,
  remoteServer,
  textOf,
  upstreamWorld,
} from "../upstream_setup.ts";

Deno.test("connections: sessions are made on first use and reused; an unknown name is not_found", async () => {
  await using world = await upstreamWorld();
  const statuses: [string, StatusChange][] = [];
  const calls: CallTrace[] = [];
  const manager = new UpstreamConnections(
    [await fixtureServer(world.signer, "files", "well_behaved")],
    world.facts,
    { onStatus: (name, change) => statuses.push([name, change]), onCall: (t) => calls.push(t) },
  );
  try {
    assert.deepEqual(manager.names(), ["files"]);
    assert.equal(manager.status("files"), "idle");
    const first = await manager.session("files");
    assert.equal(textOf(await first.callTool("echo", { text: "a" })), "echo: a");
    assert.equal(await manager.session("files"), first, "the same session");
    assert.equal(manager.status("files"), "ready");
    const unknown = await rejection(manager.session("nope"));
    assert.equal(unknown.code, "not_found");
    assert.equal(
      unknown.message,
      'mcp server "nope" is not configured (configured: files); list them with: engram mcp servers',
    );
    assert.deepEqual(statuses.map(([n, c]) => `${n}:${c.status}`), ["files:ready"]);
    assert.ok(statuses[0][1].at instanceof Date);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].server, "files");
    assert.equal(calls[0].capability, "echo");
    assert.equal(calls[0].kind, "tool");
    assert.equal(calls[0].outcome, "ok");
    assert.ok(calls[0].latency_ms > 0 && calls[0].bytes_in > 0 && calls[0].bytes_out > 0);
  } finally {
    await manager.closeAll();
  }
});

Deno.test("connections: hanging, crashing, blocked and unreachable servers never delay the healthy one", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const gone = await startStreamableHttpUpstream();
  const deadUrl = gone.url;
  await gone.close();
  const unsigned = await fixtureServer(world.signer, "unsigned", "well_behaved", { mark });
  const servers: McpServerConfig[] = [
    await fixtureServer(world.signer, "good", "well_behaved", { mark }),
    await fixtureServer(world.signer, "hangs", "hanging", { args: ["--hang", "initialize"], mark }),
    await fixtureServer(world.signer, "stubborn", "hanging", {
      args: ["--hang", "list", "--stubborn"],
      mark,
    }),
    await fixtureServer(world.signer, "crashes", "crashing", {
      args: ["--when", "initialize"],
      mark,
    }),
    { ...unsigned, manifest_signature: undefined },
    remoteServer("unreachable", "http", deadUrl),
  ];
  const timeoutMs = 1500;
  const pids: number[] = [];
  const manager = new UpstreamConnections(servers, world.facts, { requestTimeoutMs: timeoutMs });
  try {
    // A hanging connect in flight does not hold up a call to another server.
    const hanging = rejection(manager.session("hangs"));
    const started = Date.now();
    const good = await manager.session("good");
    assert.equal(textOf(await good.callTool("echo", { text: "fast" })), "echo: fast");
    assert.ok(Date.now() - started < timeoutMs, `good took ${Date.now() - started} ms`);
    assert.match(
      (await hanging).message,
      /^upstream "hangs" did not answer initialize within 1500 ms/,
    );

    const t0 = Date.now();
    const found = await manager.discover();
    pids.push(...processesWith(`--seed ${mark}`));
    const took = Date.now() - t0;
    assert.ok(took < timeoutMs + 1000, `discovery took ${took} ms`);
    const by = Object.fromEntries(found.map((d) => [d.server, d]));
    assert.deepEqual(found.map((d) => d.server), manager.names());
    assert.equal(by.good.ok, true);
    assert.ok(by.good.tools.some((t) => t.name === "echo"));
    assert.equal(by.good.resources.length, 3);
    assert.equal(by.good.resourceTemplates.length, 2);
    assert.equal(by.good.prompts.length, 2);
    assert.equal(by.hangs.error?.code, "provider_unavailable");
    assert.match(
      by.stubborn.error!.message,
      /^upstream "stubborn" did not answer tools\/list within \d+ ms/,
    );
    assert.match(
      by.crashes.error!.message,
      /^upstream "crashes" crashed during initialize \(exit code 3\)/,
    );
    assert.equal(by.unsigned.error?.code, "forbidden");
    assert.match(by.unsigned.error!.message, /blocked by rule manifest_signature/);
    assert.equal(by.unreachable.error?.code, "provider_unavailable");
    assert.match(by.unreachable.error!.message, /Connection refused/);
    assert.equal(manager.status("unsigned"), "blocked");
    assert.equal(manager.status("good"), "ready");
  } finally {
    await manager.closeAll();
  }
  assert.deepEqual(await goneWithin(`--seed ${mark}`, 3000), [], "closeAll left nothing running");
  assert.ok(pids.length >= 2, "good and stubborn were running");
  assert.deepEqual(leftovers(pids), [], "reaped, not zombies");
  await rejection(manager.session("good"));
});

Deno.test("connections: closing keeps a blocked server's last status; an open one is recorded closed", async () => {
  await using world = await upstreamWorld();
  const good = await fixtureServer(world.signer, "good", "well_behaved");
  const unsigned = await fixtureServer(world.signer, "unsigned", "well_behaved");
  const statuses: string[] = [];
  const manager = new UpstreamConnections(
    [good, { ...unsigned, manifest_signature: undefined }],
    world.facts,
    { onStatus: (name, change) => statuses.push(`${name}:${change.status}`) },
  );
  try {
    await manager.session("good");
    await rejection(manager.session("unsigned"));
  } finally {
    await manager.closeAll();
  }
  // What `engram mcp servers` shows as "last seen": blocked stays blocked after the command ends.
  assert.deepEqual(statuses.sort(), ["good:closed", "good:ready", "unsigned:blocked"]);
});

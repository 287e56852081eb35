/**
 * @module What engram's upstream connection manager adds to a call: the same stdio upstream (the
 * well-behaved fixture) called through `UpstreamConnections` (launch rules, engram's process
 * transport with its bounded framer, per-request timeout and cancel plumbing, error mapping, a
 * trace hook) and through a bare SDK Client on the SDK's stdio transport, in one process, once
 * both sessions are up. Calls alternate so machine noise falls on both alike.
 *
 * Run: `deno task bench:upstream [--calls N] [--warmup N]`. Target: p50 overhead within 1 ms.
 */
import { parseArgs } from "node:util";
import { CallToolResultSchema } from "../src/mcp/sdk.ts";
import { Client, StdioClientTransport } from "../src/mcp/sdk_client.ts";
import {
  type CallTrace,
  UpstreamConnections,
} from "../src/mcp/client/session/upstream_connections.ts";
import { launchable, testFacts, testSigner } from "../tests/mcp/client/launch_setup.ts";
import { summarize } from "./stats.ts";

const FIXTURE = new URL("../tests/fixtures/upstream/well_behaved.ts", import.meta.url).pathname;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "2000" },
    warmup: { type: "string", default: "300" },
  },
});
const calls = Number(values.calls);
const warmup = Number(values.warmup);

const dir = await Deno.makeTempDir({ prefix: "engram-bench-upstream-" });
const signer = await testSigner();
const facts = await testFacts(dir, { reviewKeys: [signer.reviewKey] });
const server = await launchable(signer, {
  name: "bench",
  command: "deno",
  args: ["run", "-q", FIXTURE],
  sandbox_profile: "standard",
});
const traces: CallTrace[] = [];
const manager = new UpstreamConnections([server], facts, {
  // A trace sink, as engram keeps one; bounded so memory does not skew the run.
  onCall: (t) => void (traces.length < 100 ? traces.push(t) : traces.splice(0, 50)),
});
const direct = new Client({ name: "bench-direct", version: "1" });
await direct.connect(
  new StdioClientTransport({ command: Deno.execPath(), args: ["run", "-q", FIXTURE] }),
);

const session = await manager.session("bench");
await session.listTools();
await direct.listTools();

/** Per-call latency in ms of each path, alternating, after `warmup` untimed rounds. */
async function measure(name: string, args: Record<string, unknown>) {
  const viaManager: number[] = [];
  const viaSdk: number[] = [];
  for (let i = 0; i < warmup + calls; i++) {
    const timed = i >= warmup;
    let t = performance.now();
    await (await manager.session("bench")).callTool(name, args);
    if (timed) viaManager.push(performance.now() - t);
    t = performance.now();
    await direct.request(
      { method: "tools/call", params: { name, arguments: args } },
      CallToolResultSchema,
    );
    if (timed) viaSdk.push(performance.now() - t);
  }
  return { manager: summarize(viaManager), sdk: summarize(viaSdk) };
}

const rows: string[] = [];
const f = (n: number) => n.toFixed(3);
for (
  const [label, name, args] of [
    ["echo (tiny result)", "echo", { text: "hello" }],
    ["large (64 KiB result)", "large", { bytes: 64 * 1024 }],
  ] as const
) {
  const r = await measure(name, args);
  rows.push(
    `| ${label} | ${f(r.sdk.p50)} | ${f(r.manager.p50)} | ${f(r.manager.p50 - r.sdk.p50)} | ${
      f(r.sdk.p99)
    } | ${f(r.manager.p99)} | ${f(r.manager.p99 - r.sdk.p99)} |`,
  );
}

await manager.closeAll();
await direct.close();
await Deno.remove(dir, { recursive: true });

console.log(`upstream call overhead, ${calls} calls each after ${warmup} warm-up (ms)\n`);
console.log(
  "| call | SDK p50 | manager p50 | Δ p50 | SDK p99 | manager p99 | Δ p99 |\n" +
    "| --- | --- | --- | --- | --- | --- | --- |",
);
for (const row of rows) console.log(row);

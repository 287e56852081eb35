/**
 * @module What exposure through `engram stdio` costs an agent (issue 15): an approved upstream tool
 * called as `mcp_files_echo` through a spawned `engram stdio`, against the same fixture upstream
 * called directly by an SDK client, calls alternating; and `tools/list` through engram with five
 * upstream servers configured, one of them dead, each exposing a tool.
 *
 * Run: `deno task bench:exposure [--calls N] [--warmup N]`. Targets: p50 overhead ≤ 1 ms;
 * tools/list ≤ 50 ms.
 */
import { parseArgs } from "node:util";
import { CallToolResultSchema } from "../src/mcp/sdk.ts";
import { Client, StdioClientTransport } from "../src/mcp/sdk_client.ts";
import { FIXTURE, signedConfig } from "../tests/cli/_signed_upstreams.ts";
import { engramCommandArgs, engramEnv, runEngram } from "../tests/helpers.ts";
import { summarize } from "./stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "1000" },
    warmup: { type: "string", default: "200" },
  },
});
const calls = Number(values.calls);
const warmup = Number(values.warmup);

const dir = await Deno.makeTempDir({ prefix: "engram-bench-exposure-" });
await Deno.mkdir(`${dir}/config`);
const servers = [
  { name: "files", fixture: "well_behaved" },
  { name: "two", fixture: "well_behaved", args: ["--name", "two"] },
  { name: "three", fixture: "well_behaved", args: ["--name", "three"] },
  { name: "four", fixture: "well_behaved", args: ["--name", "four"] },
  { name: "dead", fixture: "well_behaved", args: ["--name", "dead"] },
];
await Deno.writeTextFile(`${dir}/config/engram.yaml`, await signedConfig(servers));
for (const s of servers) {
  const r = await runEngram(["mcp", "approvals", "approve", s.name, "echo", "--expose", "read"], {
    dataDir: dir,
  });
  if (r.code !== 0) throw new Error(r.stderr);
}
// "dead" now points at a launch that fails at initialize; its approval stays (pinned listing).
const yaml = await Deno.readTextFile(`${dir}/config/engram.yaml`);
await Deno.writeTextFile(
  `${dir}/config/engram.yaml`,
  yaml.replace(
    `"${FIXTURE("well_behaved")}","--name","dead"`,
    `"${FIXTURE("crashing")}","--when","initialize"`,
  ),
);

const viaEngram = new Client({ name: "bench-engram", version: "1" });
await viaEngram.connect(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: engramCommandArgs(["stdio"]),
    env: engramEnv(dir),
    cwd: dir,
    stderr: "pipe",
  }),
);
const direct = new Client({ name: "bench-direct", version: "1" });
await direct.connect(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-q", FIXTURE("well_behaved")],
  }),
);

const listMs: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  const tools = await viaEngram.listTools();
  listMs.push(performance.now() - t);
  if (i === 0 && !tools.tools.some((x) => x.name === "mcp_dead_echo")) {
    throw new Error("the dead server's tool should stay listed from its pin");
  }
}
await direct.listTools();

const engramMs: number[] = [];
const directMs: number[] = [];
for (let i = 0; i < warmup + calls; i++) {
  let t = performance.now();
  await viaEngram.request(
    { method: "tools/call", params: { name: "mcp_files_echo", arguments: { text: "x" } } },
    CallToolResultSchema,
  );
  if (i >= warmup) engramMs.push(performance.now() - t);
  t = performance.now();
  await direct.request(
    { method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
    CallToolResultSchema,
  );
  if (i >= warmup) directMs.push(performance.now() - t);
}
const deadCall = performance.now();
await viaEngram.request(
  { method: "tools/call", params: { name: "mcp_dead_echo", arguments: { text: "x" } } },
  CallToolResultSchema,
);
const deadMs = performance.now() - deadCall;
await viaEngram.close();
await direct.close();
await Deno.remove(dir, { recursive: true }).catch(() => {});

const e = summarize(engramMs);
const d = summarize(directMs);
const l = summarize(listMs);
const ms = (n: number) => n.toFixed(3);
console.log(`| measurement | p50 ms | p99 ms | target |`);
console.log(`| --- | --- | --- | --- |`);
console.log(`| echo direct (SDK client → upstream) | ${ms(d.p50)} | ${ms(d.p99)} | |`);
console.log(`| echo through engram stdio (mcp_files_echo) | ${ms(e.p50)} | ${ms(e.p99)} | |`);
console.log(`| overhead of exposure | ${ms(e.p50 - d.p50)} | ${ms(e.p99 - d.p99)} | p50 ≤ 1 ms |`);
console.log(
  `| tools/list, 5 upstreams (1 dead), 50 times | ${ms(l.p50)} | ${ms(l.max)} (max) | ≤ 50 ms |`,
);
console.log(
  `| a call of the dead server's tool (fails fast) | ${ms(deadMs)} | | provider_unavailable |`,
);

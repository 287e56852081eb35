/**
 * @module `engram mcp import` flags each server whose launch will need network (a package runner)
 * or a host path the restricted sandbox hides, with the `engram mcp review` command that fixes it.
 */
import assert from "node:assert/strict";
import { configSetup } from "../_signed_upstreams.ts";

Deno.test("mcp import: package runners need network, host paths the standard sandbox, each with its fix", async () => {
  await using s = await configSetup("log_level: info\n");
  await Deno.writeTextFile(
    `${s.dir}/claude.json`,
    JSON.stringify({
      mcpServers: {
        everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
        notes: { command: "mcp-notes", args: ["--root", `${s.dir}/notes`] },
        fetch: { command: "uvx", args: ["mcp-server-fetch"] },
        cached: {
          command: "deno",
          args: ["run", "--cached-only", "npm:@modelcontextprotocol/server-everything@1.0.0"],
        },
        remote: { type: "http", url: "https://example.com/mcp" },
      },
    }),
  );
  const dry = await s.run(["import", "claude.json", "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  const lines = dry.stdout.split("\n");
  const after = (server: string) => {
    const at = lines.findIndex((l) => l.startsWith(`  ${server} (`));
    assert.ok(at >= 0, dry.stdout);
    const block: string[] = [];
    for (const l of lines.slice(at + 1)) {
      if (!l.startsWith("    ")) break;
      block.push(l.trim());
    }
    return block;
  };
  assert.deepEqual(after("everything"), [
    "needs network: npx -y fetches the package on its first start, and network is off; fix: engram mcp review everything --network",
  ]);
  assert.deepEqual(after("fetch"), [
    "needs network: uvx fetches the package on its first start, and network is off; fix: engram mcp review fetch --network",
  ]);
  assert.deepEqual(after("notes"), [
    `needs the standard sandbox: argument ${s.dir}/notes names a host path the restricted sandbox hides; fix: engram mcp review notes --sandbox standard`,
  ]);
  assert.deepEqual(after("cached"), [], "deno run --cached-only fetches nothing");
  assert.deepEqual(after("remote"), []);

  const real = await s.run(["import", "claude.json", "--json"]);
  assert.equal(real.code, 0, real.stderr);
  const report = JSON.parse(real.stdout) as {
    servers: { config: { name: string }; needs: { kind: string; fix: string }[] }[];
  };
  const needs = Object.fromEntries(
    report.servers.map((x) => [x.config.name, x.needs.map((n) => [n.kind, n.fix])]),
  );
  assert.deepEqual(needs.everything, [["network", "engram mcp review everything --network"]]);
  assert.deepEqual(needs.notes, [["host_path", "engram mcp review notes --sandbox standard"]]);
  assert.deepEqual(needs.cached, []);
});

/**
 * @module The two-command flow end to end, through the real CLI and a real third-party server: a
 * Claude Desktop config whose server runs `@modelcontextprotocol/server-everything` the way
 * `.ci/run` caches it (`deno run --cached-only npm:…`, no network), then `engram mcp import FILE`
 * and `engram mcp review everything --sandbox standard --approve echo --expose read --yes`; an SDK
 * client on `engram stdio` then lists and calls `mcp_everything_echo`. Skipped, with the reason,
 * when the package is not in Deno's cache.
 */
import assert from "node:assert/strict";
import { EVERYTHING_ARGS, everythingNotCached } from "../../server_everything.ts";
import { connectStdio, resultText, runEngram, tempDir } from "../../helpers.ts";

const skip = await everythingNotCached();
if (skip) console.log(`skipping the two-command flow: ${skip}`);

Deno.test({
  name:
    "two commands: import a Claude Desktop config, review it, and an agent on engram stdio lists and calls mcp_everything_echo",
  ignore: skip !== null,
  async fn() {
    await using dir = await tempDir();
    const file = `${dir.path}/claude_desktop_config.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify(
        { mcpServers: { everything: { command: "deno", args: EVERYTHING_ARGS } } },
        null,
        2,
      ),
    );
    const imported = await runEngram(["mcp", "import", file], { dataDir: dir.path });
    assert.equal(imported.code, 0, imported.stderr);

    const reviewed = await runEngram([
      "mcp",
      "review",
      "everything",
      "--sandbox",
      "standard",
      "--approve",
      "echo",
      "--expose",
      "read",
      "--yes",
    ], { dataDir: dir.path });
    assert.equal(reviewed.code, 0, reviewed.stderr + reviewed.stdout);
    assert.match(reviewed.stdout, /^agents now see: mcp_everything_echo$/m);
    assert.match(reviewed.stdout, /^undo all of it: engram mcp disable everything$/m);

    await using agent = await connectStdio(dir.path);
    const { tools } = await agent.client.listTools();
    assert.ok(
      tools.some((t) => t.name === "mcp_everything_echo"),
      tools.map((t) => t.name).join(", "),
    );
    assert.ok(!tools.some((t) => t.name === "mcp_everything_get-env"), "only what was approved");
    const result = await agent.client.callTool({
      name: "mcp_everything_echo",
      arguments: { message: "hello from the agent" },
    });
    assert.equal(result.isError ?? false, false, agent.stderr());
    assert.match(resultText(result), /hello from the agent/);
  },
});

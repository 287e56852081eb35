/**
 * @module The repository's `.mcp.json` (docs/getting-started.md#connect-an-mcp-client): it registers
 * engram, run from source through a task of deno.json, for Claude Code opened on the repository —
 * and started the way Claude Code starts it (its command and args, in the repository), it serves
 * engram's tools at the tier it names.
 */
import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../../src/mcp/sdk_client.ts";
import { engramEnv, ROOT, tempDir } from "../helpers.ts";

interface McpJson {
  mcpServers: Record<string, { command: string; args: string[] }>;
}

Deno.test(".mcp.json registers engram through an existing deno task, and it serves at --tier write", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}.mcp.json`)) as McpJson;
  const engram = config.mcpServers.engram;
  assert.ok(engram, ".mcp.json has an engram entry");
  assert.equal(engram.command, "deno");
  assert.equal(engram.args[0], "task");
  const task = engram.args.slice(1).find((a) => !a.startsWith("-"));
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks as Record<
    string,
    string
  >;
  assert.ok(task && tasks[task], `deno.json has the task ${task}`);
  assert.match(tasks[task], /main\.ts stdio$/, "the task runs engram stdio");

  await using dir = await tempDir();
  const transport = new StdioClientTransport({
    command: engram.command,
    args: engram.args,
    cwd: ROOT,
    env: engramEnv(dir.path),
    stderr: "pipe",
  });
  const client = new Client({ name: "claude-code-like", version: "1.0.0" });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "engram");
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("memory_remember"), "a write tool: the tier it names holds");
    assert.ok(!names.includes("memory_create_brain"), "no admin tool");
  } finally {
    await client.close();
  }
});

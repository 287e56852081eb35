import assert from "node:assert/strict";
import { compileArgs } from "../../scripts/compile.ts";
import { connectLikeAClient, engramEnv, tempDir } from "../helpers.ts";
import { Client, StdioClientTransport } from "../../src/mcp/sdk_client.ts";

const DENORT_BIN = Deno.env.get("DENORT_BIN");
if (!DENORT_BIN) {
  console.log(
    "skipping compile test: DENORT_BIN is not set (deno compile needs the denort runtime, which this machine cannot download)",
  );
}

Deno.test({
  name:
    "compiled binary: builds with the list-valued ceiling, prints its version and serves MCP on stdio",
  ignore: !DENORT_BIN,
  async fn() {
    await using dir = await tempDir();
    const binary = `${dir.path}/engram`;
    const build = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(binary),
      stderr: "piped",
    }).output();
    assert.equal(build.code, 0, new TextDecoder().decode(build.stderr));

    const version = await new Deno.Command(binary, {
      args: ["version"],
      env: engramEnv(dir.path),
      clearEnv: true,
    })
      .output();
    assert.equal(version.code, 0);
    assert.match(new TextDecoder().decode(version.stdout), /^engram \d+\.\d+\.\d+/);

    const client = new Client({ name: "compile-test", version: "1" });
    await connectLikeAClient(
      client,
      new StdioClientTransport({
        command: binary,
        args: ["stdio", "--tier", "write"],
        env: engramEnv(dir.path),
        cwd: dir.path,
        stderr: "pipe",
      }),
    );
    const r = await client.callTool({
      name: "memory_remember",
      arguments: { content: "# Compiled\nworks" },
    });
    assert.ok(!r.isError);
    await client.close();
  },
});

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
    "compiled binary: builds with the list-valued ceiling, prints its version, serves MCP on stdio and the console's assets",
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

    // The console's assets are embedded: the binary serves them with no source tree beside it.
    const serve = new Deno.Command(binary, {
      args: ["serve", "--port", "0", "--insecure-no-auth"],
      env: engramEnv(dir.path),
      clearEnv: true,
      cwd: dir.path,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      const lines = serve.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let stderr = "";
      let url: string | undefined;
      while (!url) {
        const { done, value } = await lines.read();
        if (done) throw new Error(`compiled engram serve exited before listening:\n${stderr}`);
        stderr += value;
        url = stderr.match(/serving MCP at (http:\/\/\S+)\/mcp/)?.[1];
      }
      void lines.cancel();
      for (const asset of ["console.js", "console.css"]) {
        const res: Response = await fetch(`${url}/console/assets/${asset}`);
        assert.equal(res.status, 200, `the compiled binary serves /console/assets/${asset}`);
        assert.ok((await res.text()).length > 100, `${asset} has its content`);
      }
    } finally {
      serve.kill("SIGTERM");
      await serve.status;
    }
  },
});

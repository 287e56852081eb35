/**
 * @module The config's `server.tools` is checked at start like `--tools`: a name engram does not
 * have stops `engram stdio` and `engram serve` with the key and the nearest names, instead of
 * silently listing nothing.
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";

for (const command of [["stdio"], ["serve", "--port", "0"]]) {
  Deno.test(`engram ${command[0]}: an unknown name in server.tools is refused at start`, async () => {
    await using dir = await tempDir();
    const config = `${dir.path}/engram.yaml`;
    await Deno.writeTextFile(config, "server:\n  tools: [memory_serch, mcp_files_*]\n");
    const r = await runEngram([...command, "--config", config], { dataDir: dir.path });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^engram: config key server\.tools: engram has no tool "memory_serch"; nearest: memory_search/,
    );
  });
}

Deno.test("engram stdio: an empty server.tools is refused at start", async () => {
  await using dir = await tempDir();
  const config = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(config, "server:\n  tools: []\n");
  const r = await runEngram(["stdio", "--config", config], { dataDir: dir.path });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^engram: config key server\.tools: the tool list is empty; name at least one tool/,
  );
});

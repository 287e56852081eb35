/**
 * @module An agent may edit a compiled document but not rewrite its provenance: otherwise
 * `compile-resource --all` would read whatever URI an agent wrote from a trusted server into memory.
 */
import assert from "node:assert/strict";
import { upstreamSetup } from "../../cli/_signed_upstreams.ts";
import { connectStdio, resultText } from "../../helpers.ts";

Deno.test("agents cannot rewrite where a compiled document came from", async () => {
  await using s = await upstreamSetup([
    { name: "docs", fixture: "well_behaved", extra: ["trust: verified"] },
  ]);
  const compiled = await s.run(["compile-resource", "docs", "fixture://text/hello", "--json"]);
  assert.equal(compiled.code, 0, compiled.stderr);
  const path = JSON.parse(compiled.stdout).path as string;
  await using agent = await connectStdio(s.dir, { args: ["--tier", "write"] });
  const update = await agent.client.callTool({
    name: "memory_update",
    arguments: { path, metadata: { mcp_uri: "file:///etc/shadow" } },
  });
  assert.equal(update.isError, true);
  assert.match(
    resultText(update),
    /^forbidden: .* was compiled from an upstream resource and its provenance \(mcp_uri\)/,
  );
  const remember = await agent.client.callTool({
    name: "memory_remember",
    arguments: { path, content: "# Hello\nrewritten", metadata: { mcp_server: "other" } },
  });
  assert.equal(remember.isError, true);
  assert.match(resultText(remember), /^forbidden: .*provenance \(mcp_server\)/);
  const content = await agent.client.callTool({
    name: "memory_update",
    arguments: { path, content: "# Hello\nannotated by the agent", metadata: { note: "ok" } },
  });
  assert.equal(content.isError, undefined, resultText(content));
});

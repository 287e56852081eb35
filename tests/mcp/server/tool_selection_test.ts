/**
 * @module Tool selection: `engram stdio --tools`, a token's `--tools` over HTTP, and the config's
 * `server.tools` — names or globs, applied to engram's tools and exposed upstream tools alike; a
 * tool outside the selection is neither listed nor callable.
 */
import assert from "node:assert/strict";
import { upstreamSetup } from "../../cli/_signed_upstreams.ts";
import { assertFails } from "../../cli/_util.ts";
import { connectStdio, resultText, runEngram, tempDir } from "../../helpers.ts";
import { connectHttp, createToken, spawnServe } from "../../http/http_helpers.ts";
import { selectTools } from "../../../src/mcp/server/tool_selection.ts";

Deno.test("stdio --tools lists only the selected tools, globs included; others are refused", async () => {
  await using s = await upstreamSetup([{ name: "files", fixture: "well_behaved" }]);
  await s.approve("files", { echo: "write", add: "write" });
  await using session = await connectStdio(s.dir, {
    args: ["--tier", "write", "--tools", "memory_search,memory_g*,mcp_files_e*"],
  });
  const names = (await session.client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["mcp_files_echo", "memory_get", "memory_search"]);
  const refused = await session.client.callTool({
    name: "memory_remember",
    arguments: { content: "# x" },
  });
  assert.equal(refused.isError, true);
  assert.match(
    resultText(refused),
    /^forbidden: tool memory_remember is not in this session's tool selection \(memory_search,memory_g\*,mcp_files_e\*\)/,
  );
  const upstream = await session.client.callTool({
    name: "mcp_files_add",
    arguments: { a: 1, b: 2 },
  });
  assert.match(
    resultText(upstream),
    /^forbidden: tool mcp_files_add is not in this session's tool selection/,
  );
  assert.equal(
    resultText(await session.client.callTool({ name: "mcp_files_echo", arguments: { text: "y" } })),
    "echo: y",
  );
});

Deno.test("a mistyped --tools name is a usage error with the nearest names", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["stdio", "--tools", "memory_serch"], { dataDir: dir.path });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /engram has no tool "memory_serch"; nearest: memory_search/);
  const token = await runEngram(
    ["tokens", "create", "--client", "c", "--tier", "read", "--tools", "bad name"],
    { dataDir: dir.path },
  );
  assert.equal(token.code, 2);
  assert.match(token.stderr, /"bad name" is not a tool name or glob/);
});

Deno.test("an empty --tools list is a usage error saying to name a tool", async () => {
  await using dir = await tempDir();
  assertFails(
    await runEngram(["stdio", "--tools", ","], { dataDir: dir.path }),
    2,
    "the tool list is empty; name at least one tool",
  );
});

Deno.test("a token's --tools limits its HTTP sessions, within the config's server.tools", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/config`);
  await Deno.writeTextFile(
    `${dir.path}/config/engram.yaml`,
    "server:\n  tools: [memory_search, memory_get, memory_list_brains]\n",
  );
  const created = await runEngram(
    [
      "tokens",
      "create",
      "--client",
      "narrow",
      "--tier",
      "read",
      "--tools",
      "memory_search,memory_stats",
      "--json",
    ],
    { dataDir: dir.path },
  );
  assert.equal(created.code, 0, created.stderr);
  const { token, tools } = JSON.parse(created.stdout);
  assert.deepEqual(tools, ["memory_search", "memory_stats"]);
  const listed = await runEngram(["tokens", "list"], { dataDir: dir.path });
  assert.match(listed.stdout, /narrow\s+read\s+\*\s+memory_search,memory_stats/);
  const wide = await createToken(dir.path, { client: "wide", tier: "read" });
  const serve = await spawnServe(dir.path, []);
  try {
    const namesFor = async (secret: string) => {
      await using client = await connectHttp(`${serve.url}/mcp`, secret);
      return (await client.listTools()).tools.map((t) => t.name).sort();
    };
    assert.deepEqual(await namesFor(token), ["memory_search"], "token ∩ server.tools");
    assert.deepEqual(await namesFor(wide), ["memory_get", "memory_list_brains", "memory_search"]);
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr();
  }
});

Deno.test("selectTools: whole names, * and ? globs, and every list must allow the tool", () => {
  const one = selectTools(["memory_search", "mcp_files_*", "memory_ge?"])!;
  for (const name of ["memory_search", "mcp_files_read", "mcp_files_", "memory_get"]) {
    assert.ok(one.allows(name), name);
  }
  for (const name of ["memory_search_x", "xmemory_search", "mcp_file_read", "memory_getx"]) {
    assert.ok(!one.allows(name), name);
  }
  const both = selectTools(["memory_*"], undefined, ["memory_get", "mcp_*"])!;
  assert.ok(both.allows("memory_get"));
  assert.ok(!both.allows("memory_search"), "outside the second list");
  assert.ok(!both.allows("mcp_files_read"), "outside the first list");
  assert.equal(selectTools(undefined, undefined), undefined);
});

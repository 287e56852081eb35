/**
 * @module Approved upstream tools through engram's own server, with the real SDK client listing
 * tools first as real clients do: over stdio and Streamable HTTP; tiers; progress pass-through;
 * results shaped so SDK clients accept them and saying whose they are (`_meta["engram/upstream"]`); and an upstream that changes a tool mid-session,
 * which withdraws it from every agent's list (with notifications/tools/list_changed) and makes a
 * call by its name `forbidden` with the way to review it; and the checks of a call itself: an
 * upstream that cannot start, or that lists an approved tool no longer or changed.
 */
import assert from "node:assert/strict";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "../../../src/mcp/sdk.ts";
import { NO_CHANGES, signedConfig, upstreamSetup, WELL } from "../../cli/_signed_upstreams.ts";
import { callErr, collectNotifications, connectStdio, resultText } from "../../helpers.ts";
import { connectHttp, createToken, spawnServe } from "../../http/http_helpers.ts";

Deno.test("exposure over stdio: approved tools appear as mcp_files_<tool> at their tier, and work", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", {
    echo: "read",
    add: "read",
    progress: "read",
    fail: "read",
    bad_output: "read",
    slow: "write",
  });
  {
    await using read = await connectStdio(s.dir, { env: NO_CHANGES });
    const names = (await read.client.listTools()).tools.map((t) => t.name);
    for (const n of ["mcp_files_echo", "mcp_files_add", "mcp_files_progress"]) {
      assert.ok(names.includes(n), n);
    }
    assert.ok(!names.includes("mcp_files_slow"), "a write-tier tool is not listed at read");
    assert.ok(!names.includes("mcp_files_stats"), "an unapproved tool is not listed");
    const echoed = await read.client.callTool({
      name: "mcp_files_echo",
      arguments: { text: "hi" },
    });
    assert.equal(resultText(echoed), "echo: hi");
    // Whose the text is travels with it: an agent can tell it from the user's own notes.
    assert.deepEqual(echoed._meta?.["engram/upstream"], {
      server: "files",
      tool: "echo",
      trust: "user_added",
    });
    const sum = await read.client.callTool({ name: "mcp_files_add", arguments: { a: 2, b: 3 } });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    const steps: number[] = [];
    const progressed = await read.client.callTool(
      { name: "mcp_files_progress", arguments: { steps: 3, delay_ms: 5 } },
      undefined,
      { onprogress: (p) => steps.push(p.progress) },
    );
    assert.equal(progressed.isError, undefined);
    // engram sends every step before the result, but the SDK client drops a progress notification
    // it reads in the same chunk as the response; on a loaded machine the last step can be lost so.
    assert.deepEqual(
      steps,
      [1, 2, 3].slice(0, Math.max(2, steps.length)),
      "upstream progress reaches the agent under its own token, in order",
    );
    // An upstream error result loses its structuredContent: the SDK client accepts it.
    const failed = await read.client.callTool({
      name: "mcp_files_fail",
      arguments: { mode: "result" },
    });
    assert.equal(failed.isError, true);
    assert.equal(failed.structuredContent, undefined);
    assert.equal((failed._meta?.["engram/upstream"] as { tool: string }).tool, "fail");
    // A success that breaks its own outputSchema becomes an error result saying so.
    const bad = await read.client.callTool({ name: "mcp_files_bad_output", arguments: {} });
    assert.equal(bad.isError, true);
    assert.match(
      resultText(bad),
      /^provider_unavailable: upstream files tool bad_output .*outputSchema/,
    );
    const forbidden = await read.client.callTool({ name: "mcp_files_slow", arguments: { ms: 1 } });
    assert.match(resultText(forbidden), /^forbidden: tool mcp_files_slow needs tier write/);
    const invalid = await read.client.callTool({ name: "mcp_files_echo", arguments: { nope: 1 } });
    assert.match(
      resultText(invalid),
      /^invalid_argument: arguments of mcp_files_echo do not match its inputSchema/,
    );
  }
  await using write = await connectStdio(s.dir, { args: ["--tier", "write"], env: NO_CHANGES });
  assert.ok((await write.client.listTools()).tools.some((t) => t.name === "mcp_files_slow"));
});

Deno.test("exposure: an upstream changing a tool mid-session withdraws it from the list and refuses its calls", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { echo: "read", change_definitions: "read" });
  await using session = await connectStdio(s.dir, { env: NO_CHANGES });
  const changed = collectNotifications(session.client, ToolListChangedNotificationSchema);
  assert.ok((await session.client.listTools()).tools.some((t) => t.name === "mcp_files_echo"));
  await session.client.callTool({
    name: "mcp_files_change_definitions",
    arguments: { changes: "description:echo" },
  });
  await changed.next();
  const names = (await session.client.listTools()).tools.map((t) => t.name);
  assert.ok(!names.includes("mcp_files_echo"), "the changed tool left the list");
  const refused = await session.client.callTool({
    name: "mcp_files_echo",
    arguments: { text: "x" },
  });
  assert.equal(refused.isError, true);
  assert.match(
    resultText(refused),
    /^forbidden: mcp_files_echo is not offered: upstream files tool echo: the server listed another definition .*engram mcp approvals diff files echo/,
  );
});

Deno.test("exposure over Streamable HTTP: the same tools, under the token's tier", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { echo: "read", slow: "write" });
  const token = await createToken(s.dir, { client: "alice", tier: "read" });
  const serve = await spawnServe(s.dir, [], { env: NO_CHANGES });
  try {
    await using client = await connectHttp(`${serve.url}/mcp`, token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("mcp_files_echo"));
    assert.ok(!names.includes("mcp_files_slow"));
    assert.equal(
      resultText(await client.callTool({ name: "mcp_files_echo", arguments: { text: "http" } })),
      "echo: http",
    );
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr();
  }
});

Deno.test("exposure: an upstream's elicitation goes to the agent's client when it declared elicitation, else it is declined", async () => {
  await using s = await upstreamSetup([{ name: "asker", fixture: "nested" }]);
  await s.approve("asker", { ask_form: "read" });
  {
    await using agent = await connectStdio(s.dir, {
      capabilities: { elicitation: { form: {} } },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, (req) => {
          assert.match(String(req.params.message), /.+/);
          return { action: "accept", content: { name: "Ada" } };
        }),
    });
    const answered = await agent.client.callTool({ name: "mcp_asker_ask_form", arguments: {} });
    const reply = JSON.parse(resultText(answered));
    assert.equal(reply.action, "accept");
    assert.equal(reply.content.name, "Ada");
  }
  await using plain = await connectStdio(s.dir);
  const declined = JSON.parse(
    resultText(await plain.client.callTool({ name: "mcp_asker_ask_form", arguments: {} })),
  );
  assert.equal(declined.action, "decline");
});

Deno.test("exposure: a call of an approved tool whose upstream cannot start is provider_unavailable, naming the upstream", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { echo: "read" });
  // Server files now launches a process that exits during initialize; its approval stays.
  await Deno.writeTextFile(
    `${s.dir}/config/engram.yaml`,
    await signedConfig([{ name: "files", fixture: "crashing", args: ["--when", "initialize"] }]),
  );
  await using agent = await connectStdio(s.dir);
  assert.ok(
    (await agent.client.listTools()).tools.some((t) => t.name === "mcp_files_echo"),
    "listed from its approval, without starting the upstream",
  );
  const e = await callErr(agent.client, "mcp_files_echo", { text: "x" });
  assert.equal(e.code, "provider_unavailable");
  assert.equal(e.retryable, true);
  assert.equal(
    e.message,
    'upstream files is unavailable, so mcp_files_echo cannot run: upstream "files" crashed during initialize (exit code 3); stderr: crashing: exiting with code 3 during initialize; check it with: engram mcp doctor files',
  );
});

// The upstream changes a tool without saying so: launched with UPSTREAM_CHANGES, it lists the
// change from its first tools/list, and no sighting has hidden the tool yet when it is called.
// (A change made mid-session without list_changed would not do: this engram process keeps the
// pins of the upstream's last listing until it hears list_changed, so its next call goes through.)
Deno.test("exposure: an upstream that no longer lists an approved tool refuses its call, saying how to review", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { echo: "read" });
  await using agent = await connectStdio(s.dir, {
    env: { UPSTREAM_CHANGES: "rename:echo=shout" },
  });
  assert.ok((await agent.client.listTools()).tools.some((t) => t.name === "mcp_files_echo"));
  const e = await callErr(agent.client, "mcp_files_echo", { text: "x" });
  assert.equal(e.code, "forbidden");
  assert.equal(
    e.message,
    "upstream files no longer lists echo; its approval no longer holds (review with: engram mcp approvals files)",
  );
});

Deno.test("exposure: an upstream that changed an approved tool unannounced has it withdrawn at the call", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { echo: "read" });
  await using agent = await connectStdio(s.dir, {
    env: { UPSTREAM_CHANGES: "description:echo" },
  });
  assert.ok((await agent.client.listTools()).tools.some((t) => t.name === "mcp_files_echo"));
  const e = await callErr(agent.client, "mcp_files_echo", { text: "x" });
  assert.equal(e.code, "forbidden");
  assert.equal(
    e.message,
    "upstream files changed tool echo since it was approved, so mcp_files_echo is withdrawn; the operator can review it with: engram mcp approvals diff files echo",
  );
});

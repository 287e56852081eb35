/**
 * @module Approved upstream prompts and resource templates through engram's own server, with the
 * real SDK client: listed at their tier (`mcp_files_greet`, `upstream://files/fixture://notes/{name}`),
 * got and read through the upstream with whose they are in `_meta["engram/upstream"]`; a URI no
 * approved template covers, or a prompt above the session's tier, refused; and an approval made
 * while a session is open reaches it as prompts/list_changed and resources/list_changed.
 */
import assert from "node:assert/strict";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from "../../../src/mcp/sdk.ts";
import { NO_CHANGES, upstreamSetup, WELL } from "../../cli/_signed_upstreams.ts";
import { collectNotifications, connectStdio } from "../../helpers.ts";

const ORIGIN = "engram/upstream";

Deno.test("exposure: approved upstream prompts and templates are offered at their tier, and say whose they are", async () => {
  await using s = await upstreamSetup([{ ...WELL, extra: ["trust: verified"] }], {
    env: NO_CHANGES,
  });
  await s.approve("files", { greet: "read", summarize: "write" }, { kind: "prompt" });
  await s.approve("files", { notes: "read" }, { kind: "template" });
  await using agent = await connectStdio(s.dir, { env: NO_CHANGES });
  const c = agent.client;
  assert.deepEqual(c.getServerCapabilities()?.prompts, { listChanged: true });

  const prompts = (await c.listPrompts()).prompts;
  const greet = prompts.find((p) => p.name === "mcp_files_greet");
  assert.ok(greet, "the approved prompt is listed under its exposed name");
  assert.deepEqual(greet.arguments, [{
    name: "name",
    description: "Who to greet",
    required: true,
  }]);
  assert.match(greet.description!, /\(upstream files prompt greet, through engram\)$/);
  assert.ok(prompts.some((p) => p.name === "summarize_local_context"), "engram's own stay");
  assert.ok(
    !prompts.some((p) => p.name === "mcp_files_summarize"),
    "a write prompt is not at read",
  );

  const got = await c.getPrompt({ name: "mcp_files_greet", arguments: { name: "Ada" } });
  assert.deepEqual(got.messages, [{
    role: "user",
    content: { type: "text", text: "Say hello to Ada." },
  }]);
  assert.deepEqual(got._meta?.[ORIGIN], { server: "files", prompt: "greet", trust: "verified" });
  await assert.rejects(
    c.getPrompt({ name: "mcp_files_summarize", arguments: { text: "x" } }),
    /prompt mcp_files_summarize needs tier write; this session runs at tier read/,
  );

  const templates = (await c.listResourceTemplates()).resourceTemplates;
  const notes = templates.find((t) => t.uriTemplate === "upstream://files/fixture://notes/{name}");
  assert.ok(notes, "the approved template is listed under upstream://files/");
  assert.equal(notes.name, "mcp_files_notes");
  assert.ok(!templates.some((t) => t.uriTemplate.includes("fixture://size/")), "not approved");
  const read = await c.readResource({ uri: "upstream://files/fixture://notes/hello" });
  assert.deepEqual(read.contents, [{
    uri: "upstream://files/fixture://notes/hello",
    mimeType: "text/markdown",
    text: "# hello\n\nA note called hello.\n",
  }]);
  assert.deepEqual(read._meta?.[ORIGIN], { server: "files", template: "notes", trust: "verified" });
  // A URI of that server that no approved template covers is not read through engram.
  await assert.rejects(
    c.readResource({ uri: "upstream://files/fixture://text/hello" }),
    (err: { code: number; message: string }) =>
      err.code === -32002 &&
      /no resource upstream:\/\/files\/fixture:\/\/text\/hello/.test(err.message),
  );

  await using writer = await connectStdio(s.dir, { args: ["--tier", "write"], env: NO_CHANGES });
  const summary = await writer.client.getPrompt({
    name: "mcp_files_summarize",
    arguments: { text: "long", style: "brief" },
  });
  assert.equal((summary.messages[0].content as { text: string }).text, "Summarise (brief): long");
});

Deno.test("exposure: approving a prompt or template while a session is open sends list_changed", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.approve("files", { greet: "read" }, { kind: "prompt" });
  await using agent = await connectStdio(s.dir, { env: NO_CHANGES });
  const prompts = collectNotifications(agent.client, PromptListChangedNotificationSchema);
  const resources = collectNotifications(agent.client, ResourceListChangedNotificationSchema);
  assert.ok(
    !(await agent.client.listPrompts()).prompts.some((p) => p.name === "mcp_files_summarize"),
  );
  await s.approve("files", { summarize: "read" }, { kind: "prompt" });
  await prompts.next();
  assert.ok(
    (await agent.client.listPrompts()).prompts.some((p) => p.name === "mcp_files_summarize"),
  );
  await s.approve("files", { sized: "read" }, { kind: "template" });
  await resources.next();
  const templates = (await agent.client.listResourceTemplates()).resourceTemplates;
  assert.ok(templates.some((t) => t.uriTemplate === "upstream://files/fixture://size/{bytes}"));
});

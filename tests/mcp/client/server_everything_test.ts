/**
 * @module A real third-party upstream: `@modelcontextprotocol/server-everything` (pinned), run
 * from Deno's cache (`.ci/run` caches it once; no download per test), through engram's session:
 * capability-dependent tools, progress, roots and sampling answered by engram, templates, prompts,
 * and the minimal environment it was started with. Skipped, with the reason, when not cached.
 */
import assert from "node:assert/strict";
import { EVERYTHING_ARGS, everythingNotCached } from "../../server_everything.ts";
import type { StdioServerConfig } from "../../../src/config/mcp_servers.ts";
import {
  type UpstreamEvent,
  UpstreamSession,
} from "../../../src/mcp/client/session/upstream_session.ts";
import { launchable } from "./launch_setup.ts";
import { textOf, upstreamWorld } from "./upstream_setup.ts";

const skip = await everythingNotCached();
if (skip) console.log(`skipping the server-everything tests: ${skip}`);

Deno.test({
  name:
    "server-everything: tools by declared capability, progress, roots, sampling, templates, prompts, minimal env",
  ignore: skip !== null,
  async fn() {
    await using world = await upstreamWorld();
    const server: StdioServerConfig = await launchable(world.signer, {
      name: "everything",
      command: "deno",
      args: EVERYTHING_ARGS,
      sampling: { allowed: true, max_tokens: 64 },
    });
    const events: UpstreamEvent[] = [];
    const sampled: number[] = [];
    const session = new UpstreamSession(server, {
      facts: world.facts,
      requestTimeoutMs: 15_000,
      onEvent: (e) => events.push(e),
      host: {
        roots: ["/srv/notes"],
        sample: (params) => {
          sampled.push(params.maxTokens);
          return Promise.resolve({
            role: "assistant",
            content: { type: "text", text: "a sampled answer" },
            model: "engram-test",
          });
        },
        elicit: () => Promise.resolve({ action: "decline" }),
      },
    });
    try {
      const identity = await session.connect();
      assert.equal(identity.serverInfo.name, "mcp-servers/everything");
      const names = (await session.listTools()).map((t) => t.name);
      for (const expected of ["echo", "get-env", "get-roots-list", "trigger-sampling-request"]) {
        assert.ok(names.includes(expected), `${expected} in ${names.join(", ")}`);
      }
      assert.match(textOf(await session.callTool("echo", { message: "hi" })), /hi/);

      const progress: number[] = [];
      const long = await session.callTool("trigger-long-running-operation", {
        duration: 0.3,
        steps: 3,
      }, { onprogress: (p) => progress.push(p.progress) });
      assert.match(textOf(long), /Long running operation completed/);
      assert.deepEqual(progress, [1, 2, 3]);

      assert.match(textOf(await session.callTool("get-roots-list")), /URI: file:\/\/\/srv\/notes/);
      const sampling = await session.callTool("trigger-sampling-request", {
        prompt: "hello",
        maxTokens: 500,
      });
      assert.match(JSON.stringify(sampling), /a sampled answer/);
      assert.deepEqual(sampled, [64], "capped by the server's sampling policy");

      const env = JSON.parse(textOf(await session.callTool("get-env")));
      assert.equal(env.ENGRAM_TOKEN, undefined, "engram's secrets never reach an upstream");
      assert.equal(env.OPENAI_API_KEY, undefined);
      assert.ok(env.PATH);

      assert.deepEqual((await session.listResourceTemplates()).map((t) => t.uriTemplate), [
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
      ]);
      const text = await session.readResource("demo://resource/dynamic/text/1");
      assert.equal(text.contents[0].uri, "demo://resource/dynamic/text/1");
      const prompts = (await session.listPrompts()).map((p) => p.name);
      assert.ok(prompts.includes("simple-prompt"), prompts.join(", "));
      const prompt = await session.getPrompt("simple-prompt");
      assert.ok(prompt.messages.length > 0);
      assert.ok(
        events.some((e) => e.kind === "list_changed" && e.list === "tools"),
        JSON.stringify(events),
      );
    } finally {
      await session.close();
    }
  },
});

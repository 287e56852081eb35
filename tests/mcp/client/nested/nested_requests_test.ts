/**
 * @module What an upstream asks of engram, through the nested fixture over a real process:
 * roots, sampling under the per-server policy, elicitation in form and URL modes (with schema
 * defaults, and through the terminal prompt), and a -32042 that is resolved and retried once.
 */
import assert from "node:assert/strict";
import type { CreateMessageRequestParams, ElicitRequestParams } from "../../../../src/mcp/sdk.ts";
import { terminalElicitation } from "../../../../src/mcp/client/nested/elicitation_prompt.ts";
import type { NestedHost } from "../../../../src/mcp/client/nested/nested_requests.ts";
import { UpstreamSession } from "../../../../src/mcp/client/session/upstream_session.ts";
import {
  fixtureServer,
  rejection,
  scriptedTerminal,
  textOf,
  upstreamWorld,
} from "../upstream_setup.ts";

const FORM_DEFAULTS = {
  name: "John Doe",
  age: 30,
  score: 95.5,
  status: "active",
  verified: true,
};

async function nestedSession(
  world: Awaited<ReturnType<typeof upstreamWorld>>,
  host: NestedHost,
  options: {
    args?: string[];
    sampling?: { allowed: boolean; max_tokens: number };
    waitMs?: number;
    requestTimeoutMs?: number;
    elicitationTimeoutMs?: number;
  } = {},
) {
  const server = await fixtureServer(world.signer, "nested", "nested", {
    args: options.args,
    config: options.sampling ? { sampling: options.sampling } : {},
  });
  return new UpstreamSession(server, {
    facts: world.facts,
    host,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    // Launching the fixture is not what a short request timeout is about.
    connectTimeoutMs: 30_000,
    elicitationTimeoutMs: options.elicitationTimeoutMs,
    elicitationWaitMs: options.waitMs,
  });
}

/** The JSON an ask_* tool replies with. */
async function ask(session: UpstreamSession, tool: string, args: Record<string, unknown> = {}) {
  const result = await session.callTool(tool, args);
  return { isError: result.isError === true, text: textOf(result) };
}

Deno.test("nested: roots/list answers the allowed file roots as file:// URIs", async () => {
  await using world = await upstreamWorld();
  const session = await nestedSession(world, { roots: ["/srv/notes", "/home/ada/my docs"] });
  try {
    const reply = await ask(session, "ask_roots");
    assert.deepEqual(JSON.parse(reply.text), {
      roots: [
        { uri: "file:///srv/notes", name: "notes" },
        { uri: "file:///home/ada/my%20docs", name: "my docs" },
      ],
    });
  } finally {
    await session.close();
  }
});

Deno.test("nested: sampling is declined unless the server's policy allows it, and then capped at max_tokens", async () => {
  await using world = await upstreamWorld();
  const asked: CreateMessageRequestParams[] = [];
  const host: NestedHost = {
    sample: (params, context) => {
      asked.push(params);
      assert.equal(context.server, "nested");
      return Promise.resolve({
        role: "assistant",
        content: {
          type: "text",
          text: `sampled: ${(params.messages[0].content as { text: string }).text}`,
        },
        model: "test-model",
        stopReason: "endTurn",
      });
    },
  };
  const off = await nestedSession(world, host);
  const on = await nestedSession(world, host, { sampling: { allowed: true, max_tokens: 40 } });
  try {
    const declined = await ask(off, "ask_sampling", { prompt: "hi", max_tokens: 100 });
    assert.equal(declined.isError, true);
    assert.equal(
      declined.text,
      'ask_sampling failed: MCP error -32601: engram declined sampling/createMessage from upstream "nested": sampling is off for this server; the operator can allow it with sampling: {allowed: true} in its mcp_servers entry',
    );
    assert.equal(asked.length, 0);

    const answered = await ask(on, "ask_sampling", { prompt: "hi", max_tokens: 100 });
    assert.equal(answered.isError, false, answered.text);
    assert.deepEqual(JSON.parse(answered.text), {
      role: "assistant",
      content: { type: "text", text: "sampled: hi" },
      model: "test-model",
      stopReason: "endTurn",
    });
    assert.equal(asked[0].maxTokens, 40, "capped by the policy");
    await ask(on, "ask_sampling", { prompt: "short", max_tokens: 10 });
    assert.equal(asked[1].maxTokens, 10, "a smaller ask is kept");
  } finally {
    await Promise.all([off.close(), on.close()]);
  }
});

Deno.test("nested: an accepted form gets its schema defaults; without a way to ask, elicitation is declined", async () => {
  await using world = await upstreamWorld();
  const seen: ElicitRequestParams[] = [];
  const accepting = await nestedSession(world, {
    elicit: (params) => {
      seen.push(params);
      return Promise.resolve({ action: "accept", content: { name: "Ada" } });
    },
  });
  const nobody = await nestedSession(world, {});
  try {
    const reply = await ask(accepting, "ask_form");
    assert.deepEqual(JSON.parse(reply.text), {
      action: "accept",
      content: { ...FORM_DEFAULTS, name: "Ada" },
    });
    assert.equal(seen[0].mode ?? "form", "form");
    const declined = await ask(nobody, "ask_form");
    assert.equal(declined.isError, true);
    assert.match(
      declined.text,
      /engram declined elicitation\/create from upstream "nested": nobody can be asked here/,
    );
  } finally {
    await Promise.all([accepting.close(), nobody.close()]);
  }
});

Deno.test("nested: the request timeout stands still while a person answers a form, so a late answer still completes", async () => {
  await using world = await upstreamWorld();
  const timeoutMs = 300;
  const session = await nestedSession(world, {
    // The person takes three request timeouts to answer.
    elicit: () =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ action: "accept", content: { name: "Late" } }), 3 * timeoutMs)
      ),
  }, { requestTimeoutMs: timeoutMs });
  try {
    const reply = await ask(session, "ask_form");
    assert.deepEqual(JSON.parse(reply.text), {
      action: "accept",
      content: { ...FORM_DEFAULTS, name: "Late" },
    });
  } finally {
    await session.close();
  }
});

Deno.test("nested: a form nobody answers is cancelled after mcp.elicitation_timeout_ms, and the asker is told why", async () => {
  await using world = await upstreamWorld();
  let reason = "";
  const session = await nestedSession(world, {
    elicit: (_params, context) =>
      new Promise((_resolve, reject) => {
        context.signal.addEventListener("abort", () => {
          reason = String(context.signal.reason);
          reject(new Error("gave up"));
        });
      }),
  }, { elicitationTimeoutMs: 400 });
  try {
    const reply = await ask(session, "ask_form");
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(JSON.parse(reply.text), { action: "cancel" });
    assert.equal(reason, "no answer within 400 ms (mcp.elicitation_timeout_ms)");
  } finally {
    await session.close();
  }
});

Deno.test("nested: the terminal prompt answers a form (defaults, retries on bad input) and a URL", async () => {
  await using world = await upstreamWorld();
  const terminal = scriptedTerminal(["y", "", "", "lots", "88.5", "2", "no", "y"]);
  const session = await nestedSession(world, { elicit: terminalElicitation(terminal) });
  try {
    const form = await ask(session, "ask_form");
    assert.deepEqual(JSON.parse(form.text), {
      action: "accept",
      content: { name: "John Doe", age: 30, score: 88.5, status: "inactive", verified: false },
    });
    const url = await ask(session, "ask_url");
    assert.deepEqual(JSON.parse(url.text), { elicitationId: "consent-1", action: "accept" });
    assert.match(terminal.output(), /upstream "nested" asks: Tell us about you/);
    assert.match(terminal.output(), /enter a number/);
    assert.match(terminal.output(), /https:\/\/example\.com\/consent\?elicitation=consent-1/);
    assert.match(terminal.output(), /host: example\.com; engram does not open it for you/);
  } finally {
    await session.close();
  }
});

Deno.test("nested: -32042 is shown to the user, waited for, and the call retried once", async () => {
  await using world = await upstreamWorld();
  const urls: string[] = [];
  const host: NestedHost = {
    elicit: (params) => {
      if (params.mode === "url") urls.push(params.url);
      return Promise.resolve({ action: "accept" });
    },
  };
  const completes = await nestedSession(world, host);
  const never = await nestedSession(world, host, { args: ["--never-complete"], waitMs: 300 });
  const declines = await nestedSession(world, {
    elicit: () => Promise.resolve({ action: "decline" }),
  });
  const nobody = await nestedSession(world, {});
  try {
    const done = await ask(completes, "needs_url");
    assert.deepEqual(JSON.parse(done.text), { authorized: "auth-1" });
    assert.deepEqual(urls, ["https://example.com/authorize?elicitation=auth-1"]);

    const waited = await rejection(never.callTool("needs_url"));
    assert.equal(waited.code, "provider_unavailable");
    assert.match(
      waited.message,
      /^upstream "nested" did not confirm browser step "auth-1" before 300 ms passed \(no notifications\/elicitation\/complete\); try the call again once it is done$/,
    );
    const declined = await rejection(declines.callTool("needs_url"));
    assert.equal(declined.code, "forbidden");
    assert.match(
      declined.message,
      /needs the user to finish a step in a browser before tools\/call "needs_url", and it was declined$/,
    );
    const unasked = await rejection(nobody.callTool("needs_url"));
    assert.equal(unasked.code, "forbidden");
    assert.match(
      unasked.message,
      /and nobody can be asked here; run the call from a terminal: engram mcp call$/,
    );
  } finally {
    await Promise.all([completes.close(), never.close(), declines.close(), nobody.close()]);
  }
});

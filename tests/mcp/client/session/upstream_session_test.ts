/**
 * @module Upstream sessions over real fixture processes: one session reused across operations,
 * timeouts that cancel upstream, and every way an upstream can misbehave on stdio (crash mid-call,
 * garbage, floods, oversized results) ending in a clear error within the timeout, with the
 * session still usable and no process left behind.
 */
import assert from "node:assert/strict";
import { EngramError } from "../../../../src/core/errors.ts";
import {
  type CallRecord,
  type StatusChange,
  UpstreamSession,
} from "../../../../src/mcp/client/session/upstream_session.ts";
import { goneWithin, processesWith, token } from "../launch_setup.ts";
import { fixtureServer, leftovers, rejection, textOf, upstreamWorld } from "../upstream_setup.ts";

Deno.test("session: one process serves every operation; progress passes through; close stops it", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const server = await fixtureServer(world.signer, "files", "well_behaved", {
    args: ["--name", `wb-${mark}`],
  });
  const calls: CallRecord[] = [];
  const statuses: StatusChange[] = [];
  const session = new UpstreamSession(server, {
    facts: world.facts,
    onCall: (r) => calls.push(r),
    onStatus: (s) => statuses.push(s),
  });
  try {
    assert.equal(session.status, "idle");
    const tools = await session.listTools();
    assert.ok(tools.some((t) => t.name === "echo"), JSON.stringify(tools.map((t) => t.name)));
    assert.equal(session.identity()?.serverInfo.name, `wb-${mark}`);
    assert.equal(textOf(await session.callTool("echo", { text: "one" })), "echo: one");
    const resources = await session.listResources();
    assert.deepEqual(resources.map((r) => r.uri), [
      "fixture://text/hello",
      "fixture://blob/hello.pdf",
      "fixture://blob/bytes.bin",
    ]);
    assert.deepEqual((await session.listResourceTemplates()).map((t) => t.name), [
      "notes",
      "sized",
    ]);
    assert.deepEqual((await session.listPrompts()).map((p) => p.name), ["greet", "summarize"]);
    const read = await session.readResource("fixture://text/hello");
    assert.equal(
      (read.contents[0] as { text: string }).text,
      "hello from the well-behaved upstream",
    );
    const prompt = await session.getPrompt("greet", { name: "Ada" });
    assert.equal((prompt.messages[0].content as { text: string }).text, "Say hello to Ada.");
    const progress: number[] = [];
    const counted = await session.callTool("progress", { steps: 3, delay_ms: 1 }, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.equal(textOf(counted), "counted to 3");
    assert.deepEqual(progress, [1, 2, 3]);
    // The same process answered all of it.
    assert.equal(processesWith(`wb-${mark}`).length, 1);
    const stats = JSON.parse(textOf(await session.callTool("stats")));
    assert.deepEqual(stats.calls, { echo: 1, progress: 1, stats: 1 });
    assert.deepEqual(statuses.map((s) => s.status), ["ready"]);
    assert.deepEqual(
      calls.map((c) => `${c.kind}:${c.capability}:${c.outcome}`),
      [
        "list:tools/list:ok",
        "tool:echo:ok",
        "list:resources/list:ok",
        "list:resources/templates/list:ok",
        "list:prompts/list:ok",
        "resource:fixture://text/hello:ok",
        "prompt:greet:ok",
        "tool:progress:ok",
        "tool:stats:ok",
      ],
    );
    const echo = calls[1];
    assert.equal(
      echo.bytes_out,
      JSON.stringify({ name: "echo", arguments: { text: "one" } }).length,
    );
    assert.equal(
      echo.bytes_in,
      JSON.stringify({ content: [{ type: "text", text: "echo: one" }] }).length,
    );
    assert.equal(echo.error_code, null);
  } finally {
    await session.close();
  }
  assert.equal(session.status, "closed");
  assert.deepEqual(await goneWithin(`wb-${mark}`, 2000), []);
});

Deno.test("session: a timed-out call is cancelled upstream (notifications/cancelled) and the session goes on", async () => {
  await using world = await upstreamWorld();
  const server = await fixtureServer(world.signer, "slowpoke", "well_behaved");
  const calls: CallRecord[] = [];
  const session = new UpstreamSession(server, {
    facts: world.facts,
    requestTimeoutMs: 300,
    // Starting a Deno fixture on a loaded machine can take longer than the request timeout.
    connectTimeoutMs: 15_000,
    onCall: (r) => calls.push(r),
  });
  try {
    await session.listTools();
    const started = Date.now();
    const error = await rejection(session.callTool("slow", { ms: 10_000 }));
    const took = Date.now() - started;
    assert.ok(error instanceof EngramError, String(error));
    assert.equal(error.code, "provider_unavailable");
    assert.match(
      error.message,
      /^upstream "slowpoke" did not answer tools\/call "slow" within 300 ms, so engram cancelled it; if it needs longer, raise its request_timeout_ms \(engram mcp set slowpoke request_timeout_ms=MS, or in its config entry\) within mcp\.request_timeout_ms, or check it with: engram mcp doctor slowpoke$/,
    );
    assert.ok(took >= 290 && took < 2000, `took ${took} ms`);
    // A caller's own cancel is told apart from a timeout, and also reaches the upstream.
    // Cancelled once the upstream says it is waiting (its progress 0), not after a guessed delay.
    const controller = new AbortController();
    const cancelled = session.callTool("slow", { ms: 10_000 }, {
      signal: controller.signal,
      timeoutMs: 5000,
      onprogress: () => controller.abort("operator pressed ctrl-c"),
    });
    const cancel = await rejection(cancelled);
    assert.match(
      cancel.message,
      /^tools\/call "slow" on upstream "slowpoke" was cancelled \(operator pressed ctrl-c\); the upstream was told/,
    );
    const stats = JSON.parse(textOf(await session.callTool("stats")));
    assert.equal(stats.calls.slow, 2);
    assert.deepEqual(
      stats.cancelled.map((c: { reason: string }) => c.reason),
      ["engram: no answer within 300 ms", "operator pressed ctrl-c"],
    );
    assert.deepEqual(calls.filter((c) => c.capability === "slow").map((c) => c.outcome), [
      "timeout",
      "cancelled",
    ]);
  } finally {
    await session.close();
  }
});

Deno.test("session: an upstream that crashes mid-call is a clear error with exit code and stderr; the next call reconnects", async () => {
  await using world = await upstreamWorld();
  const server = await fixtureServer(world.signer, "crashy", "crashing", {
    args: ["--when", "call"],
  });
  const statuses: string[] = [];
  const session = new UpstreamSession(server, {
    facts: world.facts,
    requestTimeoutMs: 5000,
    onStatus: (s) => statuses.push(s.status),
  });
  try {
    assert.equal(textOf(await session.callTool("echo", { text: "before" })), "echo: before");
    const started = Date.now();
    const error = await rejection(session.callTool("crash"));
    assert.ok(Date.now() - started < 3000, "well within the timeout");
    assert.equal(error.code, "provider_unavailable");
    assert.equal(
      error.message,
      'upstream "crashy" crashed mid-call (exit code 3); stderr: crashing: exiting with code 3 during tools/call; check it with: engram mcp doctor crashy',
    );
    // An explicit use does not wait for the backoff: it connects a new process at once.
    assert.equal(textOf(await session.callTool("echo", { text: "after" })), "echo: after");
    assert.deepEqual(statuses, ["ready", "reconnecting", "ready"]);
  } finally {
    await session.close();
  }
});

Deno.test("session: garbage on stdout is skipped; a call answered only by garbage times out naming it", async () => {
  await using world = await upstreamWorld();
  const banner = await fixtureServer(world.signer, "banner", "garbage", {
    args: ["--when", "start", "--kind", "binary"],
  });
  const garble = await fixtureServer(world.signer, "garble", "garbage", {
    args: ["--when", "call", "--kind", "text"],
  });
  const first = new UpstreamSession(banner, { facts: world.facts });
  const second = new UpstreamSession(garble, {
    facts: world.facts,
    requestTimeoutMs: 400,
    connectTimeoutMs: 15_000,
  });
  try {
    // Invalid UTF-8 and stray lines before the server speaks do not stop it from working.
    assert.equal(textOf(await first.callTool("echo", { text: "ok" })), "echo: ok");
    assert.equal(
      textOf(await second.callTool("garble", { answer: true })),
      "answered after the garbage",
    );
    const error = await rejection(second.callTool("garble"));
    assert.equal(error.code, "provider_unavailable");
    assert.match(
      error.message,
      /^upstream "garble" did not answer tools\/call "garble" within 400 ms, so engram cancelled it; it wrote 6 line\(s\) to stdout that are not JSON-RPC, the last: \[INFO\] ready; if it needs longer, raise its request_timeout_ms/,
    );
    assert.equal(textOf(await second.callTool("echo", { text: "still" })), "echo: still");
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});

Deno.test("session: a result over max_result_bytes is refused without holding it; the same process answers the next call", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const huge = await fixtureServer(world.signer, "huge", "flooding", {
    // Under the runaway ceiling (4 x the limit): an oversized answer, not an endless line.
    args: ["--mode", "huge", "--bytes", String(3 * 1024 * 1024)],
    mark,
  });
  const wb = await fixtureServer(world.signer, "big", "well_behaved");
  const limit = 1024 * 1024;
  const statuses: string[] = [];
  const flood = new UpstreamSession(huge, {
    facts: world.facts,
    maxResultBytes: limit,
    requestTimeoutMs: 10_000,
    onStatus: (s) => statuses.push(s.status),
  });
  const large = new UpstreamSession(wb, { facts: world.facts, maxResultBytes: limit });
  const pids: number[] = [];
  try {
    assert.equal(textOf(await flood.callTool("echo", { text: "a" })), "echo: a");
    const error = await rejection(flood.callTool("flood"));
    assert.equal(error.code, "file_too_large");
    assert.match(
      error.message,
      /^upstream "huge" answered tools\/call "flood" with 3145\d{3} bytes, over mcp\.max_result_bytes \(1048576\); ask for less, or raise mcp\.max_result_bytes$/,
    );
    assert.equal(textOf(await flood.callTool("echo", { text: "b" })), "echo: b");
    assert.deepEqual(statuses, ["ready"], "the session was never lost");
    pids.push(...processesWith(`--seed ${mark}`));
    assert.equal(pids.length, 1);

    const big = await rejection(large.callTool("large", { bytes: limit + 1 }));
    assert.equal(big.code, "file_too_large");
    const fits = await large.callTool("large", { bytes: limit - 200 });
    assert.equal(textOf(fits).length, limit - 200);
    const resource = await rejection(large.readResource(`fixture://size/${2 * limit}`));
    assert.match(
      resource.message,
      /answered resources\/read "fixture:\/\/size\/2097152" with \d+ bytes/,
    );
  } finally {
    await Promise.all([flood.close(), large.close()]);
  }
  assert.deepEqual(await goneWithin(`--seed ${mark}`, 2000), []);
  assert.deepEqual(leftovers(pids), [], "reaped, not zombies");
});

for (const order of ["method-first", "id-first"] as const) {
  Deno.test(`session: an upstream's own request over max_result_bytes is answered with an error, not left waiting (${order})`, async () => {
    await using world = await upstreamWorld();
    const asks = await fixtureServer(world.signer, "asks", "flooding", {
      args: [
        "--mode",
        "request",
        "--bytes",
        String(2 * 1024 * 1024),
        ...(order === "id-first" ? ["--id-first"] : []),
      ],
    });
    const session = new UpstreamSession(asks, {
      facts: world.facts,
      maxResultBytes: 1024 * 1024,
      requestTimeoutMs: 10_000,
    });
    try {
      const result = await session.callTool("flood");
      assert.match(
        textOf(result),
        /^refused: MCP error -32600: request is 2097\d{3} bytes, over engram's mcp\.max_result_bytes \(1048576\); send less$/,
      );
      assert.equal(textOf(await session.callTool("echo", { text: "after" })), "echo: after");
    } finally {
      await session.close();
    }
  });
}

Deno.test("session: an endless line on stdout ends the session with a clear error; stderr floods are drained", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const line = await fixtureServer(world.signer, "endless", "flooding", {
    args: ["--mode", "line"],
    mark,
  });
  const stderr = await fixtureServer(world.signer, "noisy", "flooding", {
    args: ["--mode", "stderr", "--bytes", String(4 * 1024 * 1024)],
  });
  const endless = new UpstreamSession(line, {
    facts: world.facts,
    maxResultBytes: 64 * 1024,
    requestTimeoutMs: 10_000,
  });
  const noisy = new UpstreamSession(stderr, { facts: world.facts, requestTimeoutMs: 10_000 });
  const pids: number[] = [];
  try {
    assert.equal(textOf(await endless.callTool("echo", { text: "a" })), "echo: a");
    pids.push(...processesWith(`--seed ${mark}`));
    const started = Date.now();
    const error = await rejection(endless.callTool("flood"));
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    assert.equal(error.code, "provider_unavailable");
    assert.match(
      error.message,
      /^upstream "endless" wrote \d+ bytes to stdout without a message boundary mid-call, so engram stopped it; check it with: engram mcp doctor endless$/,
    );
    assert.deepEqual(
      await goneWithin(`--seed ${mark}`, 2000),
      [],
      "the flooding process was killed",
    );
    assert.equal(textOf(await endless.callTool("echo", { text: "b" })), "echo: b", "reconnected");
    pids.push(...processesWith(`--seed ${mark}`));
    assert.equal(pids.length, 2, "a new process");
    assert.equal(
      textOf(await noisy.callTool("flood")),
      `wrote ${4 * 1024 * 1024} bytes to stderr`,
      "a server blocked on a full stderr pipe would never answer",
    );
  } finally {
    await Promise.all([endless.close(), noisy.close()]);
  }
  assert.deepEqual(await goneWithin(`--seed ${mark}`, 2000), []);
  assert.deepEqual(leftovers(pids), [], "reaped, not zombies");
});

Deno.test("session: a notification flood never answering times out; close leaves nothing running", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const server = await fixtureServer(world.signer, "chatty", "flooding", {
    args: ["--mode", "notifications"],
    mark,
  });
  const session = new UpstreamSession(server, {
    facts: world.facts,
    requestTimeoutMs: 500,
    connectTimeoutMs: 15_000,
  });
  const pids: number[] = [];
  try {
    const error = await rejection(session.callTool("flood"));
    pids.push(...processesWith(`--seed ${mark}`));
    assert.equal(pids.length, 1, "still flooding");
    assert.match(
      error.message,
      /^upstream "chatty" did not answer tools\/call "flood" within 500 ms/,
    );
  } finally {
    await session.close();
  }
  assert.deepEqual(await goneWithin(`--seed ${mark}`, 2000), []);
  assert.deepEqual(leftovers(pids), [], "reaped, not zombies");
});

Deno.test("session: the last progress notification is not lost when it arrives with the result", async () => {
  // The SDK's own stdio transport drops it most of the time: notification handlers run a
  // microtask after the response handler that removes the progress callback.
  await using world = await upstreamWorld();
  const session = new UpstreamSession(await fixtureServer(world.signer, "fast", "well_behaved"), {
    facts: world.facts,
  });
  try {
    for (let run = 0; run < 20; run++) {
      const progress: number[] = [];
      await session.callTool("progress", { steps: 5, delay_ms: 0 }, {
        onprogress: (p) => progress.push(p.progress),
      });
      assert.deepEqual(progress, [1, 2, 3, 4, 5], `run ${run}`);
    }
  } finally {
    await session.close();
  }
});

Deno.test("session: listings follow nextCursor to the last page; upstream JSON-RPC errors get engram codes", async () => {
  await using world = await upstreamWorld();
  const server = await fixtureServer(world.signer, "paged", "well_behaved", {
    args: ["--page-size", "3"],
  });
  const calls: CallRecord[] = [];
  const session = new UpstreamSession(server, { facts: world.facts, onCall: (r) => calls.push(r) });
  try {
    const tools = await session.listTools();
    assert.equal(tools.length, 10);
    assert.equal(new Set(tools.map((t) => t.name)).size, 10);
    assert.equal(calls.filter((c) => c.capability === "tools/list").length, 4, "4 pages of 3");

    const unknownTool = await rejection(session.callTool("nope"));
    assert.equal(unknownTool.code, "not_found");
    assert.equal(
      unknownTool.message,
      'upstream "paged" refused tools/call "nope": Tool nope not found',
    );
    const unknownResource = await rejection(session.readResource("fixture://missing"));
    assert.equal(unknownResource.code, "not_found");
    assert.equal(
      unknownResource.message,
      'upstream "paged" has no such resource: Resource not found: fixture://missing',
    );
    const missingArgument = await rejection(session.getPrompt("greet"));
    assert.equal(missingArgument.code, "invalid_argument");
    assert.equal(
      missingArgument.message,
      'upstream "paged" refused prompts/get "greet": Prompt greet needs argument name',
    );
    const failed = await rejection(session.callTool("fail", { mode: "protocol" }));
    assert.equal(failed.code, "provider_unavailable");
    assert.equal(
      failed.message,
      'upstream "paged" failed tools/call "fail": fail: a JSON-RPC error, as asked (JSON-RPC error -32603)',
    );
    // An error *result* is a result: returned as the upstream sent it, structuredContent and all.
    const result = await session.callTool("fail");
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent, { error: "as asked" });
    assert.equal(calls.at(-1)?.outcome, "tool_error");
    // And structuredContent that breaks the tool's own outputSchema is not rejected here.
    const bad = await session.callTool("bad_output");
    assert.deepEqual(bad.structuredContent, { sum: "not a number" });
  } finally {
    await session.close();
  }
});

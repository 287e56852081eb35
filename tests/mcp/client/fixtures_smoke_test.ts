/**
 * @module The fixture upstreams (tests/fixtures/upstream/) behave as their docs say, seen through
 * the real SDK Client over real stdio, Streamable HTTP and legacy SSE — so engram's client tests
 * can trust them. Each connection lists tools first, as a real client does.
 */
import assert from "node:assert/strict";
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  UrlElicitationRequiredError,
} from "../../../src/mcp/sdk.ts";
import {
  Client,
  SSEClientTransport,
  StdioClientTransport,
  StreamableHTTPClientTransport,
} from "../../../src/mcp/sdk_client.ts";
import { CONTROL_TEXT, PDF_TEXT } from "../../fixtures/upstream/well_behaved.ts";
import { FORM_SCHEMA } from "../../fixtures/upstream/nested.ts";
import {
  startLegacySseUpstream,
  startStreamableHttpUpstream,
} from "../../fixtures/upstream/http_upstream.ts";
// Not tests/helpers.ts: it loads all of engram, and the fixtures' check should not.
import { collectNotifications, resultText, withTimeout } from "../../sdk_waits.ts";

const FIXTURES = new URL("../../fixtures/upstream/", import.meta.url).pathname;

/** A fixture on stdio behind the SDK client; stderr and transport errors are collected. */
async function connectFixture(
  fixture: string,
  options: {
    args?: string[];
    permissions?: string[];
    env?: Record<string, string>;
    capabilities?: ClientCapabilities;
    setup?: (client: Client) => void;
    maxBufferSize?: number;
    timeout?: number;
    /** false: skip the tools/list after connecting (for upstreams that never answer it). */
    list?: boolean;
  } = {},
) {
  const denoDir = Deno.env.get("DENO_DIR");
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-q",
      ...(options.permissions ?? []),
      `${FIXTURES}${fixture}.ts`,
      ...(options.args ?? []),
    ],
    env: { NO_COLOR: "1", ...(denoDir ? { DENO_DIR: denoDir } : {}), ...options.env },
    stderr: "pipe",
    ...(options.maxBufferSize ? { maxBufferSize: options.maxBufferSize } : {}),
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
  const client = new Client({ name: "fixture-smoke", version: "1.0.0" }, {
    capabilities: options.capabilities ?? {},
  });
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  options.setup?.(client);
  await client.connect(transport, { timeout: options.timeout ?? 10_000 });
  const tools = options.list === false ? [] : (await client.listTools()).tools;
  return {
    client,
    tools,
    errors,
    pid: transport.pid,
    stderr: () => stderr,
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** The McpError a promise rejects with (fails the test if it resolves or throws something else). */
async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof McpError, `expected an McpError, got ${error}`);
  return error;
}

Deno.test("well_behaved: tools with structured output, progress, cancellation, large results", async () => {
  await using up = await connectFixture("well_behaved");
  assert.deepEqual(up.tools.map((t) => t.name), [
    "echo",
    "add",
    "progress",
    "slow",
    "large",
    "fail",
    "bad_output",
    "control_chars",
    "stats",
    "change_definitions",
  ]);
  const { client } = up;
  assert.equal(
    resultText(await client.callTool({ name: "echo", arguments: { text: "hi" } })),
    "echo: hi",
  );
  const add = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  assert.deepEqual(add.structuredContent, { sum: 5 });

  // The pinned SDK client runs a notification's handler a microtask after reading it, but settles
  // a response (and forgets its progress handler) at once: progress read in the same chunk as the
  // result is dropped. Under load the last steps and the result share a chunk, so only a prefix of
  // the steps is certain to arrive; the steps between 5 ms sleeps arrive alone.
  const progress: number[] = [];
  await client.callTool({ name: "progress", arguments: { steps: 4, delay_ms: 5 } }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  assert.ok(progress.length >= 1, "no progress notification arrived");
  assert.deepEqual(progress, [1, 2, 3, 4].slice(0, progress.length));

  const abort = new AbortController();
  const slow = client.callTool({ name: "slow", arguments: { ms: 60_000 } }, undefined, {
    signal: abort.signal,
  });
  abort.abort("the test gave up");
  await assert.rejects(slow);
  const stats = JSON.parse(resultText(await client.callTool({ name: "stats", arguments: {} })));
  assert.deepEqual(stats.cancelled.map((c: { reason: string }) => c.reason), ["the test gave up"]);

  const large = await client.callTool({ name: "large", arguments: { bytes: 300_000 } });
  assert.equal(resultText(large).length, 300_000);

  const fail = await client.callTool({ name: "fail", arguments: {} });
  assert.equal(fail.isError, true);
  assert.deepEqual(fail.structuredContent, { error: "as asked" });
  const protocol = await mcpError(
    client.callTool({ name: "fail", arguments: { mode: "protocol" } }),
  );
  assert.equal(protocol.code, ErrorCode.InternalError);
  // The SDK client checks structuredContent against the listed outputSchema.
  const bad = await mcpError(client.callTool({ name: "bad_output", arguments: {} }));
  assert.match(bad.message, /does not match the tool's output schema/);
  assert.equal(
    resultText(await client.callTool({ name: "control_chars", arguments: {} })),
    CONTROL_TEXT,
  );
});

Deno.test("well_behaved: resources (text, PDF, binary), templates and prompts", async () => {
  await using up = await connectFixture("well_behaved");
  const { client } = up;
  const resources = (await client.listResources()).resources;
  assert.deepEqual(resources.map((r) => r.mimeType), [
    "text/plain",
    "application/pdf",
    "application/octet-stream",
  ]);
  const hello = (await client.readResource({ uri: "fixture://text/hello" })).contents[0];
  assert.equal((hello as { text: string }).text, "hello from the well-behaved upstream");
  const pdf = (await client.readResource({ uri: "fixture://blob/hello.pdf" })).contents[0];
  const pdfText = atob((pdf as { blob: string }).blob);
  assert.ok(pdfText.startsWith("%PDF-1.4") && pdfText.includes(PDF_TEXT));
  const bin = (await client.readResource({ uri: "fixture://blob/bytes.bin" })).contents[0];
  assert.equal(atob((bin as { blob: string }).blob).length, 256);

  const templates = (await client.listResourceTemplates()).resourceTemplates;
  assert.deepEqual(templates.map((t) => t.uriTemplate), [
    "fixture://notes/{name}",
    "fixture://size/{bytes}",
  ]);
  const note = (await client.readResource({ uri: "fixture://notes/todo" })).contents[0];
  assert.match((note as { text: string }).text, /^# todo/);
  const sized = (await client.readResource({ uri: "fixture://size/1000" })).contents[0];
  assert.equal((sized as { text: string }).text.length, 1000);
  const missing = await mcpError(client.readResource({ uri: "fixture://nope" }));
  assert.equal(missing.code, -32002);

  assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name), ["greet", "summarize"]);
  const greet = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
  assert.deepEqual(greet.messages[0].content, { type: "text", text: "Say hello to Ada." });
});

Deno.test("well_behaved: definitions change by flag, by env value, and mid-session with list_changed", async () => {
  {
    await using up = await connectFixture("well_behaved", {
      args: ["--changes", "rename:echo=echo_v2,schema:add,annotations:echo_v2"],
    });
    const echo = up.tools.find((t) => t.name === "echo_v2");
    assert.ok(echo && !up.tools.some((t) => t.name === "echo"));
    assert.deepEqual(echo.annotations, { readOnlyHint: false, destructiveHint: true });
    assert.ok("shout" in (up.tools.find((t) => t.name === "add")?.inputSchema.properties ?? {}));
    const r = await up.client.callTool({ name: "echo_v2", arguments: { text: "x" } });
    assert.equal(resultText(r), "echo: x", "a renamed tool keeps its behaviour");
  }
  {
    await using up = await connectFixture("well_behaved", {
      permissions: ["--allow-env=UPSTREAM_CHANGES"],
      env: { UPSTREAM_CHANGES: "description,prompt-description" },
    });
    assert.equal(up.tools[0].description, "Echoes the given text back. (changed)");
  }
  await using up = await connectFixture("well_behaved");
  const changed = collectNotifications(up.client, ToolListChangedNotificationSchema);
  await up.client.callTool({
    name: "change_definitions",
    arguments: { changes: "description:add,add-tool:fresh" },
  });
  await changed.next();
  const tools = (await up.client.listTools()).tools;
  assert.match(tools.find((t) => t.name === "add")?.description ?? "", /\(changed\)$/);
  assert.equal(tools.at(-1)?.name, "fresh");
});

Deno.test("hanging: a tools/call or initialize that never answers times out; --stubborn outlives SIGTERM", async () => {
  {
    await using up = await connectFixture("hanging");
    const e = await mcpError(
      up.client.callTool({ name: "wait_forever" }, undefined, { timeout: 200 }),
    );
    assert.equal(e.code, ErrorCode.RequestTimeout);
  }
  {
    await using up = await connectFixture("hanging", { args: ["--hang", "list"], list: false });
    const e = await mcpError(up.client.listTools(undefined, { timeout: 200 }));
    assert.equal(e.code, ErrorCode.RequestTimeout);
  }
  const e = await mcpError(
    connectFixture("hanging", { args: ["--hang", "initialize"], timeout: 200 }),
  );
  assert.equal(e.code, ErrorCode.RequestTimeout);

  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `${FIXTURES}hanging.ts`, "--stubborn"],
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  await child.stdin.close();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const next = async (what: string) => (await withTimeout(lines.read(), what)).value ?? "";
  assert.match(await next("the ready notice"), /stubborn and ready/);
  child.kill("SIGTERM");
  assert.match(await next("the SIGTERM notice"), /ignoring SIGTERM/);
  child.kill("SIGKILL");
  assert.equal((await child.status).signal, "SIGKILL");
  await lines.cancel();
});

Deno.test("crashing: exiting mid-call or mid-initialize closes the connection; stderr says why", async () => {
  {
    await using up = await connectFixture("crashing", { args: ["--partial"] });
    assert.equal(
      resultText(await up.client.callTool({ name: "echo", arguments: { text: "a" } })),
      "echo: a",
    );
    const e = await mcpError(up.client.callTool({ name: "crash", arguments: {} }));
    assert.equal(e.code, ErrorCode.ConnectionClosed);
    assert.match(up.stderr(), /crashing: exiting with code 3 during tools\/call/);
  }
  const e = await mcpError(connectFixture("crashing", { args: ["--when", "initialize"] }));
  assert.equal(e.code, ErrorCode.ConnectionClosed);
});

Deno.test("garbage: a banner before serving is survivable; garbage instead of a result never answers", async () => {
  {
    await using up = await connectFixture("garbage", { args: ["--when", "start"] });
    assert.equal(up.tools.length, 2, "the SDK client skips the banner lines and carries on");
    assert.ok(up.errors.some((e) => e instanceof SyntaxError), "…reporting each to onerror");
  }
  await using up = await connectFixture("garbage", { args: ["--kind", "binary"] });
  const e = await mcpError(up.client.callTool({ name: "garble" }, undefined, { timeout: 300 }));
  assert.equal(e.code, ErrorCode.RequestTimeout);
  assert.ok(up.errors.length >= 2, `garbage lines reach onerror: ${up.errors}`);
  const answered = await up.client.callTool({ name: "garble", arguments: { answer: true } });
  assert.equal(resultText(answered), "answered after the garbage");
});

Deno.test("flooding: an endless line or huge result overflows the SDK's read buffer; notifications and stderr floods", async () => {
  for (const args of [["--mode", "line"], ["--mode", "huge", "--bytes", "2000000"]]) {
    await using up = await connectFixture("flooding", { args, maxBufferSize: 1024 * 1024 });
    const e = await mcpError(up.client.callTool({ name: "flood" }));
    assert.equal(e.code, ErrorCode.ConnectionClosed, args.join(" "));
    assert.ok(up.errors.some((e) => /ReadBuffer exceeded maximum size of 1048576/.test(e.message)));
  }
  {
    await using up = await connectFixture("flooding", {
      args: ["--mode", "huge", "--bytes", "200000"],
    });
    const r = await up.client.callTool({ name: "flood" });
    assert.equal(
      resultText(r).length,
      200_000,
      "below the limit the raw-written result is well formed",
    );
  }
  {
    await using up = await connectFixture("flooding", { args: ["--mode", "notifications"] });
    const logs = collectNotifications(up.client, LoggingMessageNotificationSchema);
    const flood = up.client.callTool({ name: "flood" }, undefined, { timeout: 60_000 });
    flood.catch(() => {});
    for (let i = 0; i < 200; i++) await logs.next();
  }
  await using up = await connectFixture("flooding", {
    args: ["--mode", "stderr", "--bytes", "1000000"],
  });
  const r = await up.client.callTool({ name: "flood" });
  assert.equal(resultText(r), "wrote 1000000 bytes to stderr");
  assert.ok(up.stderr().length >= 1_000_000);
});

Deno.test("nested: roots, sampling, form elicitation with defaults, URL elicitation, -32042 then complete", async () => {
  const asked: string[] = [];
  await using up = await connectFixture("nested", {
    capabilities: {
      roots: {},
      sampling: {},
      elicitation: { form: { applyDefaults: true }, url: {} },
    },
    setup: (client) => {
      client.setRequestHandler(ListRootsRequestSchema, () => {
        asked.push("roots");
        return { roots: [{ uri: "file:///tmp/notes", name: "notes" }] };
      });
      client.setRequestHandler(CreateMessageRequestSchema, (r) => {
        asked.push(`sampling ${r.params.maxTokens}`);
        return { model: "test", role: "assistant", content: { type: "text", text: "pong" } };
      });
      client.setRequestHandler(ElicitRequestSchema, (r) => {
        asked.push(`elicit ${r.params.mode}`);
        return r.params.mode === "url" ? { action: "accept" } : { action: "accept", content: {} };
      });
    },
  });
  const { client } = up;
  const call = async (name: string, args = {}) =>
    JSON.parse(resultText(await client.callTool({ name, arguments: args })));
  assert.deepEqual(await call("ask_roots"), {
    roots: [{ uri: "file:///tmp/notes", name: "notes" }],
  });
  assert.equal(
    (await call("ask_sampling", { prompt: "ping", max_tokens: 7 })).content.text,
    "pong",
  );
  const form = await call("ask_form");
  const defaults = Object.fromEntries(
    Object.entries(FORM_SCHEMA.properties).map(([k, v]) => [k, v.default]),
  );
  assert.deepEqual(form, { action: "accept", content: defaults }, "the SDK applied the defaults");
  const completions = collectNotifications(client, ElicitationCompleteNotificationSchema);
  assert.deepEqual(await call("ask_url"), { elicitationId: "consent-1", action: "accept" });
  assert.equal((await completions.next()).params.elicitationId, "consent-1");

  const required = await client.callTool({ name: "needs_url" }).then(() => null, (e) => e);
  assert.ok(required instanceof UrlElicitationRequiredError, String(required));
  assert.equal(required.code, -32042);
  const id = required.elicitations[0].elicitationId;
  assert.equal((await completions.next()).params.elicitationId, id);
  assert.deepEqual(await call("needs_url"), { authorized: id });
  assert.deepEqual(asked, ["roots", "sampling 7", "elicit form", "elicit url"]);
});

Deno.test("nested: a client that declared nothing gets each nested request refused", async () => {
  await using up = await connectFixture("nested");
  for (const name of ["ask_roots", "ask_sampling", "ask_form"]) {
    const r = await up.client.callTool({ name, arguments: { prompt: "x" } });
    assert.equal(r.isError, true, name);
    assert.match(resultText(r), /failed: MCP error -32601: Method not found/, name);
  }
});

Deno.test("failing_half: every other call fails, as a result or as a JSON-RPC error", async () => {
  {
    await using up = await connectFixture("failing_half");
    const flags = [];
    for (let i = 0; i < 4; i++) {
      flags.push((await up.client.callTool({ name: "flaky" })).isError === true);
    }
    assert.deepEqual(flags, [false, true, false, true]);
  }
  await using up = await connectFixture("failing_half", {
    args: ["--as", "error", "--first", "fail"],
  });
  const e = await mcpError(up.client.callTool({ name: "flaky" }));
  assert.equal(e.code, ErrorCode.InternalError);
  assert.equal(resultText(await up.client.callTool({ name: "flaky" })), "call 2: ok");
});

Deno.test("http upstream: Streamable HTTP (with a resumed stream) and legacy SSE serve the well-behaved definitions", async () => {
  {
    await using up = await startStreamableHttpUpstream({ resumable: true, retryMs: 50 });
    const client = new Client({ name: "fixture-smoke", version: "1.0.0" });
    const resumedFrom: string[] = [];
    await client.connect(
      new StreamableHTTPClientTransport(new URL(up.url), {
        fetch: (url, init) => {
          const lastEventId = new Headers(init?.headers).get("last-event-id");
          if (lastEventId) resumedFrom.push(lastEventId);
          return fetch(url, init);
        },
      }),
    );
    const tools = (await client.listTools()).tools;
    assert.ok(tools.some((t) => t.name === "drop_stream"));
    const add = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    assert.deepEqual(add.structuredContent, { sum: 2 });
    const resumed = await client.callTool({ name: "drop_stream", arguments: { ms: 150 } });
    assert.equal(resultText(resumed), "answered after the stream was dropped");
    assert.equal(resumedFrom.length, 1, "the answer came on a GET resumed with Last-Event-ID");
    assert.equal(up.sessions(), 1);
    await client.close();
  }
  await using up = await startLegacySseUpstream({ changes: ["rename:echo=say"] });
  const client = new Client({ name: "fixture-smoke", version: "1.0.0" });
  await client.connect(new SSEClientTransport(new URL(up.url)));
  assert.equal((await client.listTools()).tools[0].name, "say");
  assert.equal(
    resultText(await client.callTool({ name: "say", arguments: { text: "x" } })),
    "echo: x",
  );
  const pdf = (await client.readResource({ uri: "fixture://blob/hello.pdf" })).contents[0];
  assert.ok(atob((pdf as { blob: string }).blob).includes(PDF_TEXT));
  await client.close();
});

Deno.test("http upstream: runs as its own process and prints its URL", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net=127.0.0.1",
      "--allow-env",
      `${FIXTURES}http_upstream.ts`,
      "--transport",
      "sse",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { url } = JSON.parse((await withTimeout(lines.read(), "the URL line")).value ?? "");
  const client = new Client({ name: "fixture-smoke", version: "1.0.0" });
  await client.connect(new SSEClientTransport(new URL(url)));
  assert.ok((await client.listTools()).tools.length > 5);
  await client.close();
  await child.stdin.close();
  assert.equal((await child.status).code, 0);
  await lines.cancel();
});

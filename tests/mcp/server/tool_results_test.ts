/**
 * @module The wire contract of every memory tool, in-process: each success result checked against
 * the `outputSchema` the tool lists (with the SDK client's own validator), against the exact one
 * (bounds included), and against a closed copy of the listed one, so a key the listing does not
 * name fails; and each error result shaped as docs/tools.md#errors says — text `CODE: message`, no
 * `structuredContent`, the code in `_meta["engram/error"]` and in the audit log.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AjvJsonSchemaValidator, type CallToolResult } from "../../../src/mcp/sdk.ts";
import { strictOutputSchema } from "../../../src/mcp/server/tool_listing.ts";
import { Client, InMemoryTransport } from "../../../src/mcp/sdk_client.ts";
import { envFrom } from "../../../src/config/env.ts";
import { loadConfig } from "../../../src/config/load.ts";
import type { Tier } from "../../../src/core/types.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { CLI_CALLER, createJobRunner, openRuntime, sessionDeps } from "../../../src/cli/runtime.ts";
import { createSessionServer } from "../../../src/mcp/server/factory.ts";
import { TOOL_ERROR_META } from "../../../src/mcp/server/tool_error.ts";
import { MEMORY_TOOLS } from "../../../src/mcp/server/tools/index.ts";
import { connectLikeAClient, tempDir, toolError } from "../../helpers.ts";
import { closedSchema, FREE_KEY_MAPS, freeKeyObjects, unlistedKeys } from "./closed_schema.ts";

/** Ids and paths earlier cases produced, for the cases after them. */
interface State {
  root: string;
  port: number;
  alpha: { id: string; path: string };
  beta: { path: string };
  extractJob: string;
  queuedJob: string;
}

/** One call: its arguments, and the error code it must fail with (else it must succeed). */
interface Case {
  tool: string;
  what: string;
  args: (s: State) => Record<string, unknown>;
  error?: string;
  /** Keeps what later cases need from a successful result. */
  keep?: (s: State, out: Record<string, unknown>) => void;
  /** Fields a successful result must have, so each variant of an output shape is really seen. */
  expect?: Record<string, unknown>;
}

const NOPE = { brain: "nope" };

/** A document compiled from an upstream resource before the cases run (as compile-resource would). */
const COMPILED_PATH = "/compiled/docs/handbook.md";

/** In order: later cases use what earlier ones stored. */
const CASES: Case[] = [
  { tool: "memory_create_brain", what: "a brain", args: () => ({ name: "Team", slug: "team" }) },
  {
    tool: "memory_create_brain",
    what: "the same slug again",
    args: () => ({ name: "Team", slug: "team" }),
    error: "conflict",
  },
  {
    tool: "memory_create_brain",
    what: "a bad slug",
    args: () => ({ name: "X", slug: "Bad Slug" }),
    error: "invalid_argument",
  },
  { tool: "memory_list_brains", what: "brains", args: () => ({}) },
  {
    tool: "memory_remember",
    what: "a note with tags and a link",
    args: () => ({ content: "# Alpha\nThe alpha plan links to [[Beta]].", tags: ["plan"] }),
    keep: (s, out) => (s.alpha = { id: out.id as string, path: out.path as string }),
  },
  {
    tool: "memory_remember",
    what: "the linked note",
    args: () => ({ content: "# Beta\nBeta keeps the alpha plan honest." }),
    keep: (s, out) => (s.beta = { path: out.path as string }),
  },
  {
    tool: "memory_remember",
    what: "a note whose front matter does not parse, with its warnings",
    args: () => ({ content: "---\ntags: [a\n---\nGamma is stored anyway." }),
    expect: { title: "Gamma is stored anyway.", warnings: [{ line: 2 }] },
  },
  {
    tool: "memory_remember",
    what: "an unknown brain",
    args: () => ({ content: "x", ...NOPE }),
    error: "no_brain",
  },
  {
    tool: "memory_remember",
    what: "empty content",
    args: () => ({ content: "" }),
    error: "invalid_argument",
  },
  { tool: "memory_get", what: "by id", args: (s) => ({ id: s.alpha.id }) },
  {
    tool: "memory_get",
    what: "a missing path",
    args: () => ({ path: "/memory/global/none.md" }),
    error: "not_found",
  },
  {
    tool: "memory_update",
    what: "new content",
    args: (s) => ({
      id: s.alpha.id,
      content: "# Alpha\nThe alpha plan, revised, links to [[Beta]].",
    }),
  },
  { tool: "memory_get", what: "an earlier version", args: (s) => ({ id: s.alpha.id, version: 1 }) },
  {
    tool: "memory_update",
    what: "content whose front matter does not parse, with its warnings",
    args: (s) => ({ path: s.beta.path, content: "---\na: [1\n---\nBeta keeps the plan." }),
    expect: { version: 2, warnings: [{ line: 2 }] },
  },
  {
    tool: "memory_update",
    what: "a missing document",
    args: () => ({ path: "/memory/global/none.md", content: "x" }),
    error: "not_found",
  },
  { tool: "memory_search", what: "hits", args: () => ({ query: "alpha plan" }) },
  {
    tool: "memory_search",
    what: "a compiled document's hit, with its provenance",
    args: () => ({ query: "zeppelin" }),
    expect: { hits: [{ source: "compile", provenance: { server: "docs", edited: false } }] },
  },
  {
    tool: "memory_get",
    what: "a compiled document, with its provenance",
    args: () => ({ path: COMPILED_PATH }),
    expect: { source: "compile", provenance: { uri: "fixture://handbook", version: 1 } },
  },
  { tool: "memory_search", what: "no hits", args: () => ({ query: "zebra" }) },
  {
    tool: "memory_search",
    what: "an unknown brain",
    args: () => ({ query: "x", ...NOPE }),
    error: "no_brain",
  },
  { tool: "memory_timeline", what: "changes", args: () => ({}) },
  { tool: "memory_timeline", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  { tool: "memory_backlinks", what: "links", args: (s) => ({ path: s.beta.path }) },
  {
    tool: "memory_backlinks",
    what: "a missing document",
    args: () => ({ path: "/memory/global/none.md" }),
    error: "not_found",
  },
  { tool: "memory_tags", what: "tags", args: () => ({}) },
  { tool: "memory_tags", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  { tool: "memory_stats", what: "counts", args: () => ({}) },
  { tool: "memory_stats", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  { tool: "memory_reindex", what: "a rebuild", args: () => ({}) },
  { tool: "memory_reindex", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  {
    tool: "memory_ingest_file",
    what: "a small file",
    args: (s) => ({ path: `${s.root}/small.md` }),
    expect: { status: "completed", reused: false },
  },
  {
    tool: "memory_ingest_file",
    what: "the same file again",
    args: (s) => ({ path: `${s.root}/small.md` }),
    expect: { reused: true },
  },
  {
    tool: "memory_ingest_file",
    what: "a file whose tags are a number, with its warnings",
    args: (s) => ({ path: `${s.root}/seven.md` }),
    expect: {
      status: "completed",
      warnings: [{ line: 2, message: 'tags: 7 is a number; read as the tag "7"' }],
    },
  },
  {
    tool: "memory_ingest_file",
    what: "a file large enough to queue",
    args: (s) => ({ path: `${s.root}/large.txt` }),
    expect: { status: "queued" },
    keep: (s, out) => (s.queuedJob = out.job_id as string),
  },
  {
    tool: "memory_ingest_file",
    what: "a file outside the roots",
    args: () => ({ path: "/etc/hostname" }),
    error: "forbidden",
  },
  {
    tool: "memory_ingest_url",
    what: "an allowlisted page",
    args: (s) => ({ url: `http://127.0.0.1:${s.port}/page` }),
    expect: { path: "server" },
  },
  {
    tool: "memory_ingest_url",
    what: "a loopback name not on the allowlist",
    args: (s) => ({ url: `http://localhost:${s.port}/page` }),
    error: "forbidden",
  },
  {
    tool: "memory_extract",
    what: "session mode",
    args: () => ({
      session_id: "s1",
      messages: [{ role: "user", content: "I prefer the alpha plan." }],
    }),
    expect: { mode: "session" },
    keep: (s, out) => (s.extractJob = out.job_id as string),
  },
  {
    tool: "memory_extract",
    what: "transcript mode",
    args: () => ({ messages: [{ role: "user", content: "Beta ships on Friday." }] }),
    expect: { mode: "transcript" },
  },
  {
    tool: "memory_extract",
    what: "an unknown brain",
    args: () => ({ messages: [{ role: "user", content: "x" }], ...NOPE }),
    error: "no_brain",
  },
  {
    tool: "memory_job",
    what: "a queued ingest, finished",
    args: (s) => ({ job_id: s.queuedJob, wait_ms: 15_000 }),
    expect: { status: "completed" },
  },
  {
    tool: "memory_job",
    what: "an extraction, finished",
    args: (s) => ({ job_id: s.extractJob, wait_ms: 15_000 }),
    expect: { status: "completed" },
  },
  {
    tool: "memory_job",
    what: "an unknown job",
    args: () => ({ job_id: "job_none" }),
    error: "not_found",
  },
  { tool: "memory_recall", what: "without a session", args: () => ({ query: "alpha" }) },
  {
    tool: "memory_recall",
    what: "with a session",
    args: () => ({ query: "alpha", session_id: "s1" }),
    expect: { hits: undefined },
  },
  {
    tool: "memory_recall",
    what: "an unknown brain",
    args: () => ({ query: "x", ...NOPE }),
    error: "no_brain",
  },
  { tool: "memory_ask", what: "an answer", args: () => ({ query: "What links to Beta?" }) },
  {
    tool: "memory_ask",
    what: "an unknown brain",
    args: () => ({ query: "x", ...NOPE }),
    error: "no_brain",
  },
  {
    tool: "memory_ask",
    what: "a strict answer memory does not hold",
    args: () => ({ query: "Who approved the alpha plan budget?", strict: true }),
    expect: { grounded: false },
  },
  {
    tool: "memory_pack",
    what: "a pack for a query",
    args: () => ({ query: "alpha plan", budget_tokens: 300 }),
    expect: { basis: "query", truncated: false },
  },
  {
    tool: "memory_pack",
    what: "a missing document",
    args: () => ({ paths: ["/memory/global/none.md"] }),
    error: "not_found",
  },
  {
    tool: "memory_pack",
    what: "a budget below the minimum",
    args: () => ({ budget_tokens: 10 }),
    error: "invalid_argument",
  },
  {
    tool: "memory_remember",
    what: "a note with open loops and a decision",
    args: () => ({
      path: "/memory/project/sync.md",
      content:
        "# Sync\n\nWe decided to ship alpha on Monday.\n\n- [ ] Kenji: write the runbook (due Friday)\n\nWho owns the beta?\n",
    }),
  },
  {
    tool: "memory_open_loops",
    what: "open loops",
    args: () => ({}),
    expect: { open_counts: { task: 1, question: 1 } },
  },
  { tool: "memory_open_loops", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  {
    tool: "memory_decisions",
    what: "every decision",
    args: () => ({}),
    expect: { provider: "extractive" },
  },
  {
    tool: "memory_decisions",
    what: "decisions about a topic",
    args: () => ({ query: "ship alpha" }),
  },
  { tool: "memory_decisions", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  {
    tool: "memory_meeting_extract",
    what: "notes given as content",
    args: () => ({
      content:
        "# Kick-off 2024-06-17\n\nAttendees: Omar, Ines\n\nDecided to build native apps.\n\n## Action items\n- Omar: set up CI by 28 Jun\n",
    }),
    expect: {
      date: "2024-06-17",
      action_items: [{ task: "set up CI", owner: "Omar", due: "28 Jun" }],
    },
  },
  {
    tool: "memory_meeting_extract",
    what: "a stored document, stored as a note",
    args: () => ({ document: "/memory/project/sync.md", store: true }),
    expect: { source: { path: "/memory/project/sync.md" } },
  },
  {
    tool: "memory_meeting_extract",
    what: "a local file path instead of a document",
    args: () => ({ document: "/tmp/notes.txt" }),
    error: "not_found",
  },
  {
    tool: "memory_meeting_extract",
    what: "both content and document",
    args: () => ({ content: "x", document: "/memory/project/sync.md" }),
    error: "invalid_argument",
  },
  {
    tool: "memory_reflect",
    what: "a session",
    args: () => ({ session_id: "s1" }),
    expect: { reflection_status: "completed", reflection_attempted: true },
  },
  {
    tool: "memory_reflect",
    what: "the same session again",
    args: () => ({ session_id: "s1" }),
    expect: { reflection_attempted: false },
  },
  {
    tool: "memory_reflect",
    what: "an unknown session",
    args: () => ({ session_id: "none" }),
    error: "not_found",
  },
  {
    tool: "memory_consolidate",
    what: "a dry run",
    args: () => ({ dry_run: true }),
    expect: { result: { dry_run: true } },
  },
  { tool: "memory_consolidate", what: "a pass", args: () => ({}) },
  { tool: "memory_consolidate", what: "an unknown brain", args: () => NOPE, error: "no_brain" },
  { tool: "memory_forget", what: "a document", args: (s) => ({ id: s.alpha.id }) },
  {
    tool: "memory_forget",
    what: "a missing document",
    args: () => ({ path: "/memory/global/none.md" }),
    error: "not_found",
  },
];

/** Tools that cannot fail for a caller allowed to list them, and why. */
const NO_ERROR_CASE: Record<string, string> = {
  memory_list_brains: "takes no arguments and lists what the caller may access",
};

Deno.test("tool contract: every tool has a success case, and an error case unless it cannot fail", () => {
  for (const tool of MEMORY_TOOLS) {
    assert.ok(CASES.some((c) => c.tool === tool.name && !c.error), `${tool.name}: no success case`);
    assert.ok(
      tool.name in NO_ERROR_CASE || CASES.some((c) => c.tool === tool.name && c.error),
      `${tool.name}: no error case`,
    );
  }
});

/** An in-process engram session at `tier`, wired as `engram stdio` wires it. */
async function session(dir: string, tier: Tier) {
  const config = loadConfig({ config: `${dir}/engram.yaml`, data: `${dir}/data` }, {
    env: envFrom({ HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg` }),
    cwd: dir,
  });
  const runtime = await openRuntime(config);
  const jobs = createJobRunner(runtime, { config, logger: silentLogger });
  const server = createSessionServer({
    ...sessionDeps(runtime, { config, logger: silentLogger, cwd: dir, jobs }),
    caller: { clientId: "contract", transport: "stdio", tier, brains: "*" },
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "contract-test", version: "1" });
  await connectLikeAClient(client, b);
  return {
    client,
    dbFile: config.dbFile,
    service: runtime.service,
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
      await jobs.drain();
      runtime.close();
    },
  };
}

Deno.test("tool contract: success results match the listed outputSchema; errors carry no structuredContent", async (t) => {
  await using dir = await tempDir();
  const root = `${dir.path}/files`;
  await Deno.mkdir(root);
  await Deno.writeTextFile(`${root}/small.md`, "---\ntags: [x]\n---\n# Small\nA small file.\n");
  await Deno.writeTextFile(`${root}/seven.md`, "---\ntags: 7\n---\nA lucky file.\n");
  await Deno.writeTextFile(`${root}/large.txt`, "A line of a large file.\n".repeat(200));
  await Deno.writeTextFile(
    `${dir.path}/engram.yaml`,
    `mcp:\n  allowed_file_roots: [${JSON.stringify(root)}]\n` +
      "ingest:\n  allowed_url_hosts: [127.0.0.1]\n  queue_bytes: 1024\n",
  );
  await using web = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(
        "<html><head><title>Page</title></head><body><h1>Page</h1><p>Text.</p></body></html>",
        {
          headers: { "content-type": "text/html" },
        },
      ),
  );
  const state = { root, port: web.addr.port } as State;

  const expectedAudit = new Map<string, number>();
  const failed = (tool: string, code: string) =>
    expectedAudit.set(`${tool} ${code}`, (expectedAudit.get(`${tool} ${code}`) ?? 0) + 1);
  let dbFile = "";
  {
    await using s = await session(dir.path, "admin");
    dbFile = s.dbFile;
    await s.service.rememberCompiled(CLI_CALLER, {
      content: "# Handbook\nThe zeppelin rules, as the upstream server wrote them.",
      path: COMPILED_PATH,
    }, {
      provenance: {
        server: "docs",
        uri: "fixture://handbook",
        mime_type: "text/markdown",
        fetched_at: "2030-01-01T00:00:00.000Z",
        sha256: "a".repeat(64),
        approval: null,
      },
    });
    const { tools } = await s.client.listTools();
    const ajv = new AjvJsonSchemaValidator();
    // Held to the exact schema (bounds and patterns included), not only the lighter listed one
    // the SDK client checks.
    const validators = new Map(
      MEMORY_TOOLS.map((tool) => [tool.name, ajv.getValidator(strictOutputSchema(tool))]),
    );
    assert.equal(tools.length, MEMORY_TOOLS.length, "an admin lists every tool");
    // The listing each client sees, closed: a key it does not name fails.
    const closedSchemas = new Map(
      tools.map((tool) => [tool.name, closedSchema(tool.outputSchema) as Record<string, unknown>]),
    );
    const closed = new Map(
      [...closedSchemas].map(([name, schema]) => [name, ajv.getValidator(schema)]),
    );
    const maps = tools.flatMap((tool) =>
      freeKeyObjects(tool.outputSchema).map((path) => `${tool.name} ${path}`)
    );
    const mapNames = new Set(maps.map((m) => m.split("/").at(-1)!));
    for (const m of maps) {
      assert.ok(m.split("/").at(-1)! in FREE_KEY_MAPS, `${m}: a map not in FREE_KEY_MAPS`);
    }
    assert.deepEqual([...mapNames].sort(), Object.keys(FREE_KEY_MAPS).sort());

    for (const c of CASES) {
      await t.step(`${c.tool}: ${c.what}${c.error ? ` → ${c.error}` : ""}`, async () => {
        // The SDK client itself throws when structuredContent does not match the listed schema.
        const r = await s.client.callTool({
          name: c.tool,
          arguments: c.args(state),
        }) as CallToolResult;
        if (c.error) {
          const e = toolError(c.tool, r);
          assert.equal(e.code, c.error, e.text);
          assert.ok(e.message.length > 0);
          failed(c.tool, c.error);
          return;
        }
        assert.ok(!r.isError, JSON.stringify(r.content));
        assert.equal(r._meta?.[TOOL_ERROR_META], undefined);
        const out = r.structuredContent;
        assert.ok(out, "a success result carries structuredContent");
        const check = validators.get(c.tool)!(out);
        assert.ok(check.valid, `${c.tool}: ${check.valid ? "" : check.errorMessage}`);
        assert.equal(r.content[0].type, "text");
        assert.ok((r.content[0] as { text: string }).text.length > 0);
        for (const [key, value] of Object.entries(c.expect ?? {})) {
          if (value !== null && typeof value === "object") {
            assert.partialDeepStrictEqual(out[key], value, key);
          } else assert.equal(out[key], value, key);
        }
        c.keep?.(state, out);
        // Last, so that the cases after still get what this one keeps.
        const listed = closed.get(c.tool)!(out);
        assert.ok(
          listed.valid,
          `${c.tool} returns keys its listed outputSchema does not name: ${
            unlistedKeys(closedSchemas.get(c.tool), out).join(", ")
          } (${listed.valid ? "" : listed.errorMessage})`,
        );
      });
    }
  }

  await t.step("a tool above the session's tier → forbidden, shaped the same", async () => {
    await using s = await session(dir.path, "read");
    const e = toolError(
      "memory_remember",
      await s.client.callTool({
        name: "memory_remember",
        arguments: { content: "x" },
      }) as CallToolResult,
    );
    assert.equal(e.code, "forbidden");
    assert.equal(e.retryable, false);
    assert.match(e.message, /needs tier write/);
    failed("memory_remember", "forbidden");
  });

  await t.step(
    "memory_meeting_extract lists at read tier; store: true there → forbidden",
    async () => {
      await using s = await session(dir.path, "read");
      const { tools } = await s.client.listTools();
      const meeting = tools.find((x) => x.name === "memory_meeting_extract");
      assert.equal(meeting?.annotations?.readOnlyHint, false);
      const e = toolError(
        "memory_meeting_extract",
        await s.client.callTool({
          name: "memory_meeting_extract",
          arguments: { content: "# Sync\n\nAgreed: ship.", store: true },
        }) as CallToolResult,
      );
      assert.equal(e.code, "forbidden");
      assert.match(
        e.message,
        /store: true writes a note and needs tier write; .*call again without store/,
      );
      failed("memory_meeting_extract", "forbidden");
    },
  );

  await t.step("the audit log records each failure's code", () => {
    const db = new DatabaseSync(dbFile, { readOnly: true });
    try {
      const rows = db.prepare(
        "SELECT name, error_code, count(*) AS n FROM audit WHERE kind = 'tool' AND outcome = 'error' GROUP BY name, error_code",
      ).all() as { name: string; error_code: string; n: number }[];
      assert.deepEqual(
        new Map(rows.map((r) => [`${r.name} ${r.error_code}`, r.n])),
        expectedAudit,
      );
    } finally {
      db.close();
    }
  });
});

/**
 * @module The layering of src/, held as rules over its import graph (docs/architecture.md#layers).
 * Every import of every module is read from the source (static, re-export, and `import("…")` with
 * a literal); each rule is checked on the real graph, and on a small synthetic graph with a
 * violation, so that a rule that could no longer fail would be noticed.
 */
import assert from "node:assert/strict";
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  Server,
} from "../src/mcp/sdk.ts";
import { InMemoryTransport } from "../src/mcp/sdk_client.ts";
import {
  folderSizes,
  graphOf,
  importsOf,
  readSources,
  show,
  synthetic,
} from "./architecture/import_graph.ts";
import {
  adapterViolations,
  coreViolations,
  crowdedFolders,
  cycles,
  edgeViolations,
  FLAT_LIMIT,
  layerViolations,
  processViolations,
  storageViolations,
} from "./architecture/rules.ts";

const sources = readSources();
const graph = graphOf(sources);

Deno.test("architecture: the reader finds every kind of import and skips comments", () => {
  const found = importsOf(
    "src/a/b.ts",
    [
      `import { x } from "./x.ts";`,
      `import type { T } from "../t.ts";`,
      `import { type U, type V } from "./uv.ts";`,
      `import {\n  y,\n  type Z,\n} from "zod";`,
      `import * as all from "node:path";`,
      `import d, { e } from "./de.ts";`,
      `export { f } from "./f.ts";`,
      `export * from "./star.ts";`,
      `import "./side.ts";`,
      `const m = await import("../../c/m.ts");`,
      `let r: typeof import("./r.ts");`,
      `// import { no } from "./comment.ts";`,
      ` * import("./doc.ts")`,
    ].join("\n"),
  );
  assert.deepEqual(found.map((i) => [i.specifier, i.target, i.typeOnly]), [
    ["./x.ts", "src/a/x.ts", false],
    ["../t.ts", "src/t.ts", true],
    ["./uv.ts", "src/a/uv.ts", true],
    ["zod", undefined, false],
    ["node:path", undefined, false],
    ["./de.ts", "src/a/de.ts", false],
    ["./f.ts", "src/a/f.ts", false],
    ["./star.ts", "src/a/star.ts", false],
    ["./side.ts", "src/a/side.ts", false],
    ["../../c/m.ts", "c/m.ts", false],
    ["./r.ts", "src/a/r.ts", true],
  ]);
});

Deno.test("architecture: the graph holds src/ and main.ts, and every relative import resolves", () => {
  assert.ok(graph.size > 250, `only ${graph.size} modules read`);
  assert.ok(graph.has("main.ts") && graph.has("src/core/memory_service.ts"));
  const unresolved = [...graph].flatMap(([file, imports]) =>
    imports.filter((i) => i.target && !sources.has(i.target) && i.target.endsWith(".ts"))
      .map((i) => show(file, i))
  );
  assert.deepEqual(unresolved, [], "imports naming no module of src/");
});

Deno.test("architecture: src/core imports only src/core and its allowed packages", () => {
  assert.deepEqual(coreViolations(graph), [], "add a port in src/core/ports, not an import");
});

Deno.test("architecture: the core rule fails on an outward or unlisted import", () => {
  assert.deepEqual(
    coreViolations(synthetic({
      "src/core/a.ts": ["./b.ts", "../storage/sqlite/x.ts", "node:sqlite", "zod"],
      "src/core/b.ts": [],
    })),
    [
      `src/core/a.ts imports "../storage/sqlite/x.ts"`,
      `src/core/a.ts imports "node:sqlite"`,
    ],
  );
});

Deno.test("architecture: each layer imports only the layers inside it", () => {
  assert.deepEqual(layerViolations(graph), []);
});

Deno.test("architecture: the layer rule fails on an outward import", () => {
  assert.deepEqual(
    layerViolations(synthetic({
      "src/providers/a.ts": ["../core/x.ts", "../mcp/server/tool.ts"],
      "src/mcp/server/b.ts": ["../sdk.ts", "./c.ts", "../client/x.ts"],
      "src/http/c.ts": ["../cli/runtime.ts"],
      "src/cli/d.ts": ["../storage/sqlite/backup.ts"],
    })),
    [
      `src/providers/a.ts imports "../mcp/server/tool.ts" (providers may not import mcp/server)`,
      `src/mcp/server/b.ts imports "../client/x.ts" (mcp/server may not import mcp/client)`,
      `src/http/c.ts imports "../cli/runtime.ts" (http may not import cli)`,
    ],
  );
});

Deno.test("architecture: src/storage never imports http, mcp, cli, providers or ingest", () => {
  assert.deepEqual(storageViolations(graph), []);
});

Deno.test("architecture: the storage rule fails on an outward import", () => {
  assert.deepEqual(
    storageViolations(synthetic({
      "src/storage/sqlite/a.ts": ["../../core/ports/x.ts", "../../mcp/sdk.ts", "./b.ts"],
    })),
    [`src/storage/sqlite/a.ts imports "../../mcp/sdk.ts"`],
  );
});

Deno.test("architecture: src/http and src/mcp/server never import src/storage", () => {
  assert.deepEqual(edgeViolations(graph), []);
});

Deno.test("architecture: the edge rule fails on an import of storage", () => {
  assert.deepEqual(
    edgeViolations(synthetic({
      "src/http/a.ts": ["../storage/sqlite/rows.ts"],
      "src/mcp/server/tools/b.ts": ["../../../storage/sqlite/x.ts", "../../../core/x.ts"],
    })),
    [
      `src/http/a.ts imports "../storage/sqlite/rows.ts"`,
      `src/mcp/server/tools/b.ts imports "../../../storage/sqlite/x.ts"`,
    ],
  );
});

Deno.test("architecture: only src/cli imports storage, and only its adapter entry points", () => {
  assert.deepEqual(adapterViolations(graph), []);
});

Deno.test("architecture: the adapter rule fails outside src/cli and on an inner module", () => {
  assert.deepEqual(
    adapterViolations(synthetic({
      "src/cli/runtime.ts": ["../storage/sqlite/sqlite_storage.ts", "../storage/sqlite/rows.ts"],
      "src/cli/commands/backup.ts": ["../../storage/sqlite/backup/backup.ts"],
      "src/ingest/a.ts": ["../storage/sqlite/sqlite_storage.ts"],
      "src/storage/sqlite/backup/backup.ts": ["./database.ts"],
    })),
    [
      `src/cli/runtime.ts imports "../storage/sqlite/rows.ts"`,
      `src/ingest/a.ts imports "../storage/sqlite/sqlite_storage.ts"`,
    ],
  );
});

Deno.test("architecture: no import cycles among the modules", () => {
  assert.deepEqual(cycles(graph), [], "break each cycle: move the shared part to its own module");
});

Deno.test("architecture: the cycle rule reports each cycle's path", () => {
  assert.deepEqual(
    cycles(synthetic({
      "src/a.ts": ["./b.ts"],
      "src/b.ts": ["./c.ts", "./d.ts"],
      "src/c.ts": ["./a.ts"],
      "src/d.ts": ["./e.ts"],
      "src/e.ts": ["./e.ts"],
      "src/f.ts": ["./a.ts"],
    })),
    ["src/e.ts -> src/e.ts", "src/a.ts -> src/b.ts -> src/c.ts -> src/a.ts"],
  );
});

Deno.test(`architecture: no folder of src/ holds more than ${FLAT_LIMIT} files flat`, () => {
  assert.deepEqual(crowdedFolders(folderSizes()), []);
});

Deno.test("architecture: the folder rule fails on a crowded folder", () => {
  assert.deepEqual(
    crowdedFolders(new Map([["src/a", FLAT_LIMIT], ["src/b", FLAT_LIMIT + 1]])),
    [`src/b holds ${FLAT_LIMIT + 1} files flat (at most ${FLAT_LIMIT}): split it into rooms`],
  );
});

Deno.test("architecture: only main.ts calls Deno.exit; only src/config reads Deno.env", () => {
  assert.deepEqual(processViolations(sources), []);
});

Deno.test("architecture: the process rule fails on an exit or an env read elsewhere", () => {
  assert.deepEqual(
    processViolations(
      new Map([
        ["main.ts", "Deno.exit(1);"],
        ["src/config/env.ts", "Deno.env.toObject();"],
        ["src/cli/a.ts", "// Deno.exit is main's\nDeno.exit(2);"],
        ["src/http/b.ts", "const home = Deno.env.get('HOME');"],
        ["src/core/c.ts", "process.env.X;"],
      ]),
    ),
    [
      "src/cli/a.ts ends the process (only main.ts may)",
      "src/http/b.ts reads the environment (only src/config may)",
      "src/core/c.ts reads the environment (only src/config may)",
    ],
  );
});

Deno.test("architecture: canary — the bare SDK still answers bad tools/call params with -32603", async () => {
  // What src/mcp/server/strict_handler.ts exists for: the SDK parses a request with its schema
  // before the handler runs and answers a mismatch as an internal error, where MCP wants -32602.
  const server = new Server({ name: "bare", version: "0" }, { capabilities: { tools: {} } });
  const echo = { name: "echo", inputSchema: { type: "object" as const } };
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [echo] }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies = new Map<unknown, JSONRPCMessage>();
  client.onmessage = (m) => void ("id" in m && replies.set(m.id, m));
  await server.connect(serverSide);
  try {
    await client.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "c", version: "0" },
      },
    });
    await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await client.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 5 } });
    // The same call well formed: the server answers, so the error above is about the params.
    await client.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo" } });
    for (let i = 0; i < 100 && !(replies.has(2) && replies.has(3)); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(replies.get(3) && "result" in replies.get(3)!, JSON.stringify(replies.get(3)));
    const reply = replies.get(2) as { error?: { code: number; message: string } } | undefined;
    assert.ok(reply?.error, `no error reply: ${JSON.stringify(reply)}`);
    assert.equal(
      reply.error.code,
      -32603,
      `the pinned MCP SDK now answers bad tools/call params with ${reply.error.code}, not -32603: ` +
        "it has fixed what src/mcp/server/strict_handler.ts works around, so that file can go " +
        "(register the SDK's own schemas and check tests/http/status_codes_test.ts)",
    );
  } finally {
    await server.close();
  }
});

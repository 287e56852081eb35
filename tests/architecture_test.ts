/**
 * @module The layering of src/, held as rules over its import graph (docs/architecture.md#layers).
 * Every import of every module is read from the source (static, re-export, and `import("…")` with
 * a literal); each rule is checked on the real graph, and on a small synthetic graph with a
 * violation, so that a rule that could no longer fail would be noticed.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  Server,
} from "../src/mcp/sdk.ts";
import { InMemoryTransport } from "../src/mcp/sdk_client.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** One import of a module: as written, and (relative ones) the repository path it names. */
interface Import {
  specifier: string;
  /** Repository-relative path (`src/core/x.ts`) of a relative import; undefined for packages. */
  target?: string;
  typeOnly: boolean;
}

/** Module path (repository-relative) → its imports. */
type Graph = Map<string, Import[]>;

/** Module path → its source text (for the rules about what code calls, not imports). */
type Sources = Map<string, string>;

// Whole-line comments go first, so a doc comment quoting an import is not read as one.
const COMMENT_LINE = /^[ \t]*(\/\/|\/\*|\*).*$/gm;
const CLAUSE = String.raw`(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+)`;
const STATIC = new RegExp(
  String.raw`^[ \t]*(import|export)(\s+type)?\s*(${CLAUSE})\s*from\s*(["'])([^"'\n]+)\4`,
  "gm",
);
const BARE = /^[ \t]*import\s*(["'])([^"'\n]+)\1/gm;
const DYNAMIC = /(typeof\s+)?\bimport\s*\(\s*(["'])([^"'\n]+)\2\s*\)/g;

/** The imports written in `source`, a module at repository path `file`. */
function importsOf(file: string, source: string): Import[] {
  const code = source.replace(COMMENT_LINE, "");
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const target = specifier.startsWith(".")
      ? normalize(join(dirname(file), specifier))
      : undefined;
    found.push({ specifier, typeOnly, ...(target ? { target } : {}) });
  };
  for (const m of code.matchAll(STATIC)) {
    const names = m[3].match(/^\{([^}]*)\}$/)?.[1].split(",").map((n) => n.trim()).filter(Boolean);
    const allTypes = names !== undefined && names.every((n) => n.startsWith("type "));
    add(m[5], m[2] !== undefined || allTypes);
  }
  for (const m of code.matchAll(BARE)) add(m[2], false);
  for (const m of code.matchAll(DYNAMIC)) add(m[3], m[1] !== undefined);
  return found;
}

/** Every .ts module under src/, and main.ts. */
function readSources(): Sources {
  const sources: Sources = new Map([["main.ts", Deno.readTextFileSync(join(ROOT, "main.ts"))]]);
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.name.endsWith(".ts")) {
        sources.set(path, Deno.readTextFileSync(join(ROOT, path)));
      }
    }
  };
  walk("src");
  return sources;
}

/** Folder → how many files it holds directly (any kind), for every folder of src/. */
function folderSizes(): Map<string, number> {
  const sizes = new Map<string, number>();
  const walk = (dir: string) => {
    let files = 0;
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      if (entry.isDirectory) walk(`${dir}/${entry.name}`);
      else files++;
    }
    sizes.set(dir, files);
  };
  walk("src");
  return sizes;
}

function graphOf(sources: Sources): Graph {
  return new Map([...sources].map(([file, text]) => [file, importsOf(file, text)]));
}

const under = (path: string, ...dirs: string[]) => dirs.some((d) => path.startsWith(`${d}/`));
const show = (file: string, i: Import) => `${file} imports "${i.specifier}"`;

/** What src/core may import from outside itself: exactly what it imports today. */
const CORE_PACKAGES = new Set([
  "zod",
  "yaml",
  "@orama/stopwords/english",
  "gpt-tokenizer/encoding/cl100k_base",
  "node:buffer",
  "node:crypto",
]);

/** The storage modules that open or build a backend: what the composition root may import. */
const STORAGE_ADAPTERS = new Set([
  "src/storage/sqlite/sqlite_storage.ts",
  "src/storage/sqlite/backup/backup.ts",
  "src/storage/sqlite/backup/restore.ts",
]);

/** The most files a folder of src/ holds directly before it wants rooms. */
const FLAT_LIMIT = 25;

/**
 * The layers each layer of src/ may import besides itself (docs/architecture.md#layers):
 * dependencies point inward, to src/core. src/cli, the composition root, may import any; only
 * main.ts imports src/cli. `mcp` is src/mcp's own modules (the SDK in one place, request ids).
 */
const LAYER_IMPORTS: Record<string, readonly string[]> = {
  "core": [],
  "config": ["core"],
  "storage": ["core"],
  "providers": ["core", "config"],
  "ingest": ["core", "version"],
  "mcp": [],
  "mcp/server": ["core", "mcp", "ingest", "providers", "version"],
  "mcp/client": ["core", "mcp", "mcp/server", "config", "ingest", "providers", "version"],
  "http": ["core", "mcp", "mcp/server", "config", "version"],
  "cli": ["core", "mcp", "mcp/server", "mcp/client", "config", "ingest", "providers", "storage"]
    .concat(["http", "version"]),
  // src/version.ts takes the version from deno.json.
  "version": ["deno.json"],
  "main": ["cli", "config"],
};

/**
 * The layer of a module: `core`, `mcp/server`, `main`, …; `version` is src/version.ts, and a file
 * outside src/ is its own path.
 */
function layerOf(path: string): string {
  if (path === "main.ts") return "main";
  if (!path.startsWith("src/")) return path;
  const [, top, sub] = path.split("/");
  if (top === "version.ts") return "version";
  return top === "mcp" && sub && !sub.endsWith(".ts") ? `mcp/${sub}` : top;
}

/** Imports from a layer into one it may not reach (or an unknown layer). */
function layerViolations(graph: Graph): string[] {
  return [...graph].flatMap(([file, imports]) => {
    const from = layerOf(file);
    return imports.filter((i) => {
      if (!i.target) return false;
      const to = layerOf(i.target);
      return to !== from && !(LAYER_IMPORTS[from] ?? []).includes(to);
    }).map((i) => `${show(file, i)} (${from} may not import ${layerOf(i.target!)})`);
  });
}

/** src/core imports src/core and the allowed packages, nothing else. */
function coreViolations(graph: Graph): string[] {
  return [...graph].filter(([file]) => under(file, "src/core")).flatMap(([file, imports]) =>
    imports.filter((i) => i.target ? !under(i.target, "src/core") : !CORE_PACKAGES.has(i.specifier))
      .map((i) => show(file, i))
  );
}

/** src/storage reaches none of the outer layers. */
function storageViolations(graph: Graph): string[] {
  const outer = ["src/http", "src/mcp", "src/cli", "src/providers", "src/ingest"];
  return [...graph].filter(([file]) => under(file, "src/storage")).flatMap(([file, imports]) =>
    imports.filter((i) => i.target && under(i.target, ...outer)).map((i) => show(file, i))
  );
}

/** The edges (HTTP and the MCP server) see storage only through core's ports. */
function edgeViolations(graph: Graph): string[] {
  return [...graph].filter(([file]) => under(file, "src/http", "src/mcp/server")).flatMap((
    [file, imports],
  ) => imports.filter((i) => i.target && under(i.target, "src/storage")).map((i) => show(file, i)));
}

/**
 * Outside src/storage, only src/cli and main.ts import storage, and only its adapter entry points
 * (STORAGE_ADAPTERS): everything else gets ports from the composition root.
 */
function adapterViolations(graph: Graph): string[] {
  return [...graph].filter(([file]) => !under(file, "src/storage")).flatMap(([file, imports]) =>
    imports.filter((i) => i.target && under(i.target, "src/storage")).filter((i) =>
      !(under(file, "src/cli") || file === "main.ts") || !STORAGE_ADAPTERS.has(i.target!)
    ).map((i) => show(file, i))
  );
}

/** Each import cycle among the modules (one path per strongly connected set), as `a -> b -> a`. */
function cycles(graph: Graph): string[] {
  const edges = new Map([...graph].map(([file, imports]) => [
    file,
    [...new Set(imports.flatMap((i) => i.target && graph.has(i.target) ? [i.target] : []))],
  ]));
  // Tarjan's strongly connected components, iterative over the small graph.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)!.includes(v)) {
      found.push(cyclePath(v, new Set(component), edges));
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** A path from `start` back to itself inside `component` (breadth-first: a shortest one). */
function cyclePath(start: string, component: Set<string>, edges: Map<string, string[]>): string {
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v)!) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = from.get(u)!) path.splice(1, 0, u);
        return [...path, start].join(" -> ");
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return start;
}

/** Folders holding more than FLAT_LIMIT files directly. */
function crowdedFolders(sizes: Map<string, number>): string[] {
  return [...sizes].filter(([, n]) => n > FLAT_LIMIT).map(([dir, n]) =>
    `${dir} holds ${n} files flat (at most ${FLAT_LIMIT}): split it into rooms`
  );
}

/** Only main.ts ends the process; only src/config reads the environment. */
function processViolations(sources: Sources): string[] {
  const found: string[] = [];
  for (const [file, text] of sources) {
    const code = text.replace(COMMENT_LINE, "");
    if (file !== "main.ts" && /\b(Deno|process)\s*\.\s*exit\b/.test(code)) {
      found.push(`${file} ends the process (only main.ts may)`);
    }
    if (!under(file, "src/config") && /\b(Deno|process)\s*\.\s*env\b/.test(code)) {
      found.push(`${file} reads the environment (only src/config may)`);
    }
  }
  return found;
}

const sources = readSources();
const graph = graphOf(sources);

/** A synthetic graph from module path → the specifiers it imports. */
function synthetic(modules: Record<string, string[]>): Graph {
  return graphOf(
    new Map(
      Object.entries(modules).map((
        [file, specs],
      ) => [file, specs.map((s) => `import { x } from "${s}";`).join("\n")]),
    ),
  );
}

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

/**
 * @module The layering rules tests/architecture_test.ts holds src/ to (docs/architecture.md#layers):
 * each a function from the import graph (or the sources, or folder sizes) to its violations.
 */
import { COMMENT_LINE, type Graph, show, type Sources, under } from "./import_graph.ts";

/** What src/core may import from outside itself: exactly what it imports today. */
export const CORE_PACKAGES = new Set([
  "zod",
  "yaml",
  "@orama/stopwords/english",
  "gpt-tokenizer/encoding/cl100k_base",
  "node:buffer",
  "node:crypto",
]);

/** The storage modules that open or build a backend: what the composition root may import. */
export const STORAGE_ADAPTERS = new Set([
  "src/storage/sqlite/sqlite_storage.ts",
  "src/storage/sqlite/backup/backup.ts",
  "src/storage/sqlite/backup/restore.ts",
  "src/storage/postgres/postgres_storage.ts",
  "src/storage/migrate/migrate.ts",
]);

/** The most files a folder of src/ holds directly before it wants rooms. */
export const FLAT_LIMIT = 25;

/**
 * The layers each layer of src/ may import besides itself (docs/architecture.md#layers):
 * dependencies point inward, to src/core. src/cli, the composition root, may import any; only
 * main.ts imports src/cli. `mcp` is src/mcp's own modules (the SDK in one place, request ids).
 */
export const LAYER_IMPORTS: Record<string, readonly string[]> = {
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
export function layerOf(path: string): string {
  if (path === "main.ts") return "main";
  if (!path.startsWith("src/")) return path;
  const [, top, sub] = path.split("/");
  if (top === "version.ts") return "version";
  return top === "mcp" && sub && !sub.endsWith(".ts") ? `mcp/${sub}` : top;
}

/** Imports from a layer into one it may not reach (or an unknown layer). */
export function layerViolations(graph: Graph): string[] {
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
export function coreViolations(graph: Graph): string[] {
  return [...graph].filter(([file]) => under(file, "src/core")).flatMap(([file, imports]) =>
    imports.filter((i) => i.target ? !under(i.target, "src/core") : !CORE_PACKAGES.has(i.specifier))
      .map((i) => show(file, i))
  );
}

/** src/storage reaches none of the outer layers. */
export function storageViolations(graph: Graph): string[] {
  const outer = ["src/http", "src/mcp", "src/cli", "src/providers", "src/ingest"];
  return [...graph].filter(([file]) => under(file, "src/storage")).flatMap(([file, imports]) =>
    imports.filter((i) => i.target && under(i.target, ...outer)).map((i) => show(file, i))
  );
}

/** The edges (HTTP and the MCP server) see storage only through core's ports. */
export function edgeViolations(graph: Graph): string[] {
  return [...graph].filter(([file]) => under(file, "src/http", "src/mcp/server")).flatMap((
    [file, imports],
  ) => imports.filter((i) => i.target && under(i.target, "src/storage")).map((i) => show(file, i)));
}

/**
 * Outside src/storage, only src/cli and main.ts import storage, and only its adapter entry points
 * (STORAGE_ADAPTERS): everything else gets ports from the composition root.
 */
export function adapterViolations(graph: Graph): string[] {
  return [...graph].filter(([file]) => !under(file, "src/storage")).flatMap(([file, imports]) =>
    imports.filter((i) => i.target && under(i.target, "src/storage")).filter((i) =>
      !(under(file, "src/cli") || file === "main.ts") || !STORAGE_ADAPTERS.has(i.target!)
    ).map((i) => show(file, i))
  );
}

/** Each import cycle among the modules (one path per strongly connected set), as `a -> b -> a`. */
export function cycles(graph: Graph): string[] {
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
export function crowdedFolders(sizes: Map<string, number>): string[] {
  return [...sizes].filter(([, n]) => n > FLAT_LIMIT).map(([dir, n]) =>
    `${dir} holds ${n} files flat (at most ${FLAT_LIMIT}): split it into rooms`
  );
}

/** Only main.ts ends the process; only src/config reads the environment. */
export function processViolations(sources: Sources): string[] {
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

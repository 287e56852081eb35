/**
 * @module The import graph of src/ as tests/architecture_test.ts reads it: every import of every
 * module, read from the source text (static, re-export, bare and `import("…")` with a literal), with
 * relative ones resolved to repository paths; and synthetic graphs for the rules' self-tests.
 */
import { dirname, join, normalize } from "node:path";

/** The repository root. */
export const ROOT = new URL("../..", import.meta.url).pathname;

/** One import of a module: as written, and (relative ones) the repository path it names. */
export interface Import {
  specifier: string;
  /** Repository-relative path (`src/core/x.ts`) of a relative import; undefined for packages. */
  target?: string;
  typeOnly: boolean;
}

/** Module path (repository-relative) → its imports. */
export type Graph = Map<string, Import[]>;

/** Module path → its source text (for the rules about what code calls, not imports). */
export type Sources = Map<string, string>;

// Whole-line comments go first, so a doc comment quoting an import is not read as one.
/** A whole line of comment (skipped: imports there are prose). */
export const COMMENT_LINE = /^[ \t]*(\/\/|\/\*|\*).*$/gm;
const CLAUSE = String.raw`(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+)`;
const STATIC = new RegExp(
  String.raw`^[ \t]*(import|export)(\s+type)?\s*(${CLAUSE})\s*from\s*(["'])([^"'\n]+)\4`,
  "gm",
);
const BARE = /^[ \t]*import\s*(["'])([^"'\n]+)\1/gm;
const DYNAMIC = /(typeof\s+)?\bimport\s*\(\s*(["'])([^"'\n]+)\2\s*\)/g;

/** The imports written in `source`, a module at repository path `file`. */
export function importsOf(file: string, source: string): Import[] {
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
export function readSources(): Sources {
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
export function folderSizes(): Map<string, number> {
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

export function graphOf(sources: Sources): Graph {
  return new Map([...sources].map(([file, text]) => [file, importsOf(file, text)]));
}

export const under = (path: string, ...dirs: string[]) =>
  dirs.some((d) => path.startsWith(`${d}/`));
export const show = (file: string, i: Import) => `${file} imports "${i.specifier}"`;

/** A synthetic graph from module path → the specifiers it imports. */
export function synthetic(modules: Record<string, string[]>): Graph {
  return graphOf(
    new Map(
      Object.entries(modules).map((
        [file, specs],
      ) => [file, specs.map((s) => `import { x } from "${s}";`).join("\n")]),
    ),
  );
}

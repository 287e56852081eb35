/** @module Walking a folder for ingestion: .gitignore rules, dot-folders skipped, an optional glob. */
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";

/** A file found by the walk. */
export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Path below the walked folder, `/`-separated. */
  rel: string;
}

/** Files under `dir` (sorted), honouring .gitignore files at every level, skipping dot-entries. */
export async function walkFiles(
  dir: string,
  options: { glob?: string; exclude?: string[] } = {},
): Promise<WalkedFile[]> {
  const match = options.glob ? picomatch(options.glob, { dot: false }) : null;
  const out: WalkedFile[] = [];
  const base = ignore().add(options.exclude ?? []);
  await visit(dir, "", [{ prefix: "", rules: base }], new Set(), (file) => {
    if (!match || match(file.rel)) out.push(file);
  });
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

interface Scope {
  prefix: string;
  rules: Ignore;
}

async function visit(
  dir: string,
  rel: string,
  scopes: Scope[],
  ancestors: Set<string>,
  emit: (f: WalkedFile) => void,
): Promise<void> {
  // A link back to a folder being walked would loop forever: such a link is skipped.
  const real = await Deno.realPath(dir);
  if (ancestors.has(real)) return;
  ancestors.add(real);
  const here = [...scopes];
  const gitignore = await Deno.readTextFile(`${dir}/.gitignore`).catch(() => null);
  if (gitignore !== null) here.push({ prefix: rel, rules: ignore().add(gitignore) });
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    const childRel = rel ? `${rel}/${e.name}` : e.name;
    const isDir = e.isDirectory ||
      (e.isSymlink && (await Deno.stat(`${dir}/${e.name}`).catch(() => null))?.isDirectory);
    if (ignored(here, childRel, Boolean(isDir))) continue;
    if (isDir) await visit(`${dir}/${e.name}`, childRel, here, ancestors, emit);
    else emit({ path: `${dir}/${e.name}`, rel: childRel });
  }
  ancestors.delete(real);
}

/** A path is ignored if any enclosing .gitignore (relative to its own folder) ignores it. */
function ignored(scopes: Scope[], rel: string, isDir: boolean): boolean {
  return scopes.some((s) => {
    const local = s.prefix ? rel.slice(s.prefix.length + 1) : rel;
    return local !== "" && s.rules.ignores(isDir ? `${local}/` : local);
  });
}

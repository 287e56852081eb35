/**
 * @module Obsidian-style vaults: a brain written out as markdown files with YAML front matter, and
 * a folder of such files read back in. Paths map one to one (`/notes/a.md` ↔ `DIR/notes/a.md`), so
 * wiki links and relative markdown links keep resolving, and backlinks come back on import.
 */
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { EngramError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import {
  type FrontMatter,
  readFrontMatter,
  writeFrontMatter,
} from "../core/markdown/front_matter.ts";
import { deriveTitle, normalizePath } from "../core/markdown/naming.ts";
import { findHeadings } from "../core/markdown/structure.ts";
import type { MemoryService } from "../core/memory_service.ts";
import type {
  Brain,
  CallerContext,
  DocumentWithContent,
  InputWarning,
  Metadata,
} from "../core/types.ts";

/** Ids engram issues; another front matter `id` (a Zettelkasten number, say) stays metadata. */
const DOC_ID = /^doc_[0-9A-Za-z]{1,64}$/;
/** File names imported and written: markdown only. */
const MARKDOWN = /\.md$/i;

/** Options of exportVault and importVault. */
export interface VaultOptions {
  /** Brain slug or id; else the default brain. */
  brain?: string;
  /** The vault folder (relative paths resolve against the process's working directory). */
  dir: string;
  /** Called after each file with the number done, the total and the file (relative to `dir`). */
  onProgress?: (done: number, total: number, file: string) => void;
}

/** A file (relative to the vault, `/`-separated) that could not be exported or imported, and why. */
export interface VaultFailure {
  file: string;
  error: string;
}

/** What both operations report. */
interface VaultSummary {
  brain_id: string;
  brain_slug: string;
  /** The vault folder, absolute. */
  dir: string;
  failed: VaultFailure[];
  took_ms: number;
}

/** What exportVault did: `documents` files written, one per live document. */
export interface ExportSummary extends VaultSummary {
  documents: number;
}

/** What importVault did: of `files` markdown files, `imported` made a document or a version. */
export interface ImportSummary extends VaultSummary {
  files: number;
  imported: number;
  /** Files whose document already matched them: no new version. */
  unchanged: number;
  /** What reading a file's front matter could not take as written; the file was imported. */
  warnings: VaultWarning[];
}

/** A line of a vault file (relative to the vault, `/`-separated) read otherwise than written. */
export interface VaultWarning extends InputWarning {
  file: string;
}

/**
 * Writes every live document of a brain to `DIR/<document path>` (`.md` appended when missing) with
 * front matter (see writeFrontMatter): title, tags and metadata keys flat, engram's id, timestamps
 * and internal keys such as `source_hash` under `engram:` (so a re-import stays a no-op). Existing
 * files are overwritten; nothing is written through a symbolic link or outside `DIR`.
 */
export async function exportVault(
  service: MemoryService,
  caller: CallerContext,
  options: VaultOptions,
): Promise<ExportSummary> {
  const started = performance.now();
  const brain = await service.brain(caller, options.brain);
  const dir = resolve(options.dir);
  await checkVaultDir(dir, { create: true });
  const root = await Deno.realPath(dir);
  const total = (await service.stats(caller, { brain: brain.id })).documents;
  const owners = new Map<string, string>();
  const failed: VaultFailure[] = [];
  let done = 0;
  for await (const doc of service.liveDocuments(brain)) {
    const file = vaultFile(doc.path);
    try {
      const owner = owners.get(file);
      if (owner !== undefined) {
        throw new EngramError(
          "conflict",
          `documents ${owner} and ${doc.path} both map to ${file}; move one with memory_update new_path`,
        );
      }
      await writeInside(root, file, renderDocument(doc));
      owners.set(file, doc.path);
    } catch (err) {
      failed.push({ file, error: messageOf(err) });
    }
    options.onProgress?.(++done, Math.max(total, done), file);
  }
  return { ...summaryOf(brain, { dir, failed, started }), documents: owners.size };
}

/**
 * Imports every `*.md` under `DIR` (dot-folders such as `.obsidian` skipped) at path
 * `/<file relative to DIR>`. Front matter gives title, tags, metadata, and the id and timestamps of
 * a new document (the id only when no document anywhere has it). A file that cannot be read or
 * stored is listed in `failed`; the others are still imported.
 */
export async function importVault(
  service: MemoryService,
  caller: CallerContext,
  options: VaultOptions,
): Promise<ImportSummary> {
  const started = performance.now();
  const dir = resolve(options.dir);
  await checkVaultDir(dir, { create: false });
  const brain = await service.brain(caller, options.brain);
  const files = await markdownFiles(dir);
  const failed: VaultFailure[] = [];
  const warnings: VaultWarning[] = [];
  let imported = 0;
  let unchanged = 0;
  for (const [i, file] of files.entries()) {
    try {
      const done = await importFile(service, caller, { brain, dir, file });
      if (done.changed) imported++;
      else unchanged++;
      warnings.push(...done.warnings.map((w) => ({ file, ...w })));
    } catch (err) {
      failed.push({ file, error: messageOf(err) });
    }
    options.onProgress?.(i + 1, files.length, file);
  }
  return {
    ...summaryOf(brain, { dir, failed, started }),
    files: files.length,
    imported,
    unchanged,
    warnings,
  };
}

/** Checks that `dir` is a folder: missing is `not_found` (created instead with `create`), a file is `invalid_argument`. */
export async function checkVaultDir(dir: string, options: { create: boolean }): Promise<void> {
  const stat = await Deno.stat(dir).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return null;
    throw new EngramError("forbidden", `cannot open vault folder ${dir}: ${messageOf(err)}`);
  });
  if (stat === null && options.create) await Deno.mkdir(dir, { recursive: true });
  else if (stat === null) {
    throw new EngramError(
      "not_found",
      `vault folder ${dir} does not exist; give the folder that holds the markdown files`,
    );
  } else if (!stat.isDirectory) {
    throw new EngramError(
      "invalid_argument",
      `${dir} is a file, not a folder; give the vault folder (its markdown files are read recursively)`,
    );
  }
}

/** The vault file of a document path: no leading slash, `.md` appended when missing. */
function vaultFile(path: string): string {
  return path.replace(/^\/+/, "").replace(/(?<!\.md)$/i, ".md");
}

/** Front matter, one blank line (removed again on import), then the content as stored. */
function renderDocument(doc: DocumentWithContent): string {
  const { tags, ...metadata } = doc.metadata;
  const front: FrontMatter = {
    id: doc.id,
    title: doc.title,
    tags: tags === undefined || tags === null ? [] : String(tags).split(",").filter((t) => t),
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    metadata,
  };
  return `${writeFrontMatter(front)}\n${doc.content}`;
}

/** Writes `root/file`, refusing paths that leave `root` and symbolic links on the way. */
async function writeInside(root: string, file: string, text: string): Promise<void> {
  const target = join(root, ...file.split("/"));
  const rel = relative(root, target);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new EngramError("forbidden", `${file} would be written outside ${root}; nothing written`);
  }
  let at = root;
  for (const segment of rel.split(sep)) {
    at = join(at, segment);
    const where = relative(root, at);
    const stat = await Deno.lstat(at).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    });
    if (stat?.isSymlink) {
      throw new EngramError(
        "forbidden",
        `${where} is a symbolic link; export does not write through links — remove it or export elsewhere`,
      );
    }
    if (at === target) break;
    if (stat === null) await Deno.mkdir(at);
    else if (!stat.isDirectory) {
      throw new EngramError(
        "conflict",
        `${where} is a file where a folder is needed; move it away`,
      );
    }
  }
  await Deno.writeTextFile(target, text);
}

/** `*.md` files under `dir`, relative and `/`-separated, sorted; dot-folders and linked folders skipped. */
async function markdownFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string[]) => {
    for await (const entry of Deno.readDir(join(dir, ...rel))) {
      const parts = [...rel, entry.name];
      let isFile = entry.isFile;
      if (entry.isSymlink) {
        // A linked file is read; a linked folder is not followed (it could loop or leave the vault).
        isFile = await Deno.stat(join(dir, ...parts)).then((s) => s.isFile, () => false);
      }
      if (entry.isDirectory && !entry.name.startsWith(".")) await walk(parts);
      else if (isFile && MARKDOWN.test(entry.name)) out.push(parts.join("/"));
    }
  };
  await walk([]);
  return out.sort();
}

/** Imports one file: `changed` when it created a document or a version, and what reading it found. */
async function importFile(
  service: MemoryService,
  caller: CallerContext,
  options: { brain: Brain; dir: string; file: string },
): Promise<{ changed: boolean; warnings: InputWarning[] }> {
  const { brain, dir, file } = options;
  const full = join(dir, ...file.split("/"));
  const { size } = await Deno.stat(full);
  // Only a guard against reading a huge stray file: the document limit is the service's.
  if (size > LIMITS.importFileBytes) {
    throw new EngramError(
      "file_too_large",
      `${file} is ${mebibytes(size)} MiB; import reads notes of at most ${
        mebibytes(LIMITS.importFileBytes)
      } MiB — split it`,
    );
  }
  const text = decodeNote(await Deno.readFile(full), file);
  const { front, body, warnings, title: brokenTitle } = readFrontMatter(text);
  const fm: FrontMatter = front ?? { tags: [], metadata: {} };
  const metadata: Metadata = { ...fm.metadata };
  delete metadata.tags;
  let id = fm.id;
  if (id !== undefined && !DOC_ID.test(id)) {
    metadata.id ??= id;
    id = undefined;
  }
  const title = fm.title ?? brokenTitle ??
    (findHeadings(body).length ? deriveTitle(body) : basename(file).replace(MARKDOWN, ""));
  if (title.length > LIMITS.titleChars) {
    throw new EngramError(
      "invalid_argument",
      `title is ${title.length} characters; the limit is ${LIMITS.titleChars} — shorten it in the front matter`,
    );
  }
  const path = normalizePath(`/${file}`);
  const existing = await service.findLive(brain, { path });
  // The file is the truth: metadata keys it no longer has are removed from the document.
  if (existing) {
    for (const k of Object.keys(existing.metadata)) {
      if (k !== "tags" && !(k in metadata)) metadata[k] = null;
    }
  }
  const doc = await service.remember(
    caller,
    { content: body, title, brain: brain.id, path, tags: fm.tags, metadata },
    {
      source: "ingest",
      contentType: "text/markdown",
      id,
      createdAt: fm.created_at,
      updatedAt: fm.updated_at,
      warnings,
    },
  );
  return { changed: !existing || doc.version !== existing.version, warnings };
}

/** UTF-8 text of a note, or `invalid_argument` for binary. */
function decodeNote(bytes: Uint8Array, file: string): string {
  let text: string | null = null;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch { /* reported below */ }
  if (text === null || text.includes("\0")) {
    const why = text === null ? "is not UTF-8 text" : "contains NUL bytes, so it looks binary";
    throw new EngramError(
      "invalid_argument",
      `${file} ${why}; save it as UTF-8 markdown or move it out of the vault`,
    );
  }
  return text;
}

function mebibytes(bytes: number): string {
  return (bytes / 1048576).toFixed(bytes % 1048576 === 0 ? 0 : 1);
}

function summaryOf(
  brain: Brain,
  options: { dir: string; failed: VaultFailure[]; started: number },
): VaultSummary {
  const { dir, failed, started } = options;
  const took_ms = Math.round(performance.now() - started);
  return { brain_id: brain.id, brain_slug: brain.slug, dir, failed, took_ms };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** @module Small document helpers shared by the memory service: lookups, not-found errors, metadata merges. */
import { EngramError } from "./errors.ts";
import { normalizePath } from "./markdown/naming.ts";
import type { DocumentRef } from "./store.ts";
import type { Brain, Metadata } from "./types.ts";

/** A store lookup for an id or a (normalised) path. */
export function refOf(args: { id?: string; path?: string }): DocumentRef {
  return args.id !== undefined ? { id: args.id } : { path: normalizePath(args.path!) };
}

/** `not_found` naming the document, the version and the brain, with where to look. */
export function notFound(
  args: { id?: string; path?: string; version?: number },
  brain: Brain,
): EngramError {
  const what = args.id !== undefined ? `id ${args.id}` : `path ${args.path}`;
  const version = args.version !== undefined ? ` at version ${args.version}` : "";
  return new EngramError(
    "not_found",
    `document with ${what}${version} not found in brain "${brain.slug}"; find documents with memory_search or memory_timeline`,
  );
}

/** Merges metadata patches; null deletes a key; tags, when given, replace `metadata.tags`. */
export function mergeMetadata(base: Metadata, patch?: Metadata, tags?: string[]): Metadata {
  const out: Metadata = { ...base };
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  if (tags !== undefined) {
    const unique = [...new Set(tags.map((t) => t.trim()))];
    if (unique.length) out.tags = unique.join(",");
    else delete out.tags;
  }
  return out;
}

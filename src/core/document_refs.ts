/** @module Document references from tool arguments, and the not-found error that names them. */
import { EngramError } from "./errors.ts";
import { normalizePath } from "./markdown/naming.ts";
import type { DocumentRef } from "./ports/document_store.ts";
import type { Brain } from "./types.ts";

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

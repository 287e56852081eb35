/**
 * @module The PATH|ID argument of `engram get` and `engram forget`: a value starting with `/` is a
 * path; anything else is tried as a document id, then as a path (`notes/a.md` is `/notes/a.md`).
 */
import { EngramError } from "../core/errors.ts";
import type { Brain } from "../core/types.ts";

/** One way to name a document to the memory service. */
export type DocumentLookup = { id: string; path?: undefined } | { path: string; id?: undefined };

/** Ids are at most 128 characters (the tools' limit), so a longer value can only be a path. */
const MAX_ID_CHARS = 128;

/**
 * Runs `fn` with each reading of `ref` until one finds the document. When none does: `not_found`
 * naming what was asked, the brain, and how to list its documents.
 */
export async function byDocumentRef<T>(
  ref: string,
  brain: Brain,
  fn: (lookup: DocumentLookup) => Promise<T>,
): Promise<T> {
  const lookups: DocumentLookup[] = ref.startsWith("/") || ref.length > MAX_ID_CHARS
    ? [{ path: ref }]
    : [{ id: ref }, { path: ref }];
  for (const lookup of lookups) {
    try {
      return await fn(lookup);
    } catch (err) {
      if (!(err instanceof EngramError && err.code === "not_found")) throw err;
    }
  }
  const what = lookups.length === 1 ? `at path "${ref}"` : `with id or path "${ref}"`;
  throw new EngramError(
    "not_found",
    `no document ${what} in brain "${brain.slug}"; list its documents with: engram list --brain ${brain.slug}`,
  );
}

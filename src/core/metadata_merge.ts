/** @module Merging metadata patches into a document's metadata: null deletes, tags replace. */
import type { Metadata } from "./types.ts";

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

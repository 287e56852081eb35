/**
 * @module Provenance of compiled documents (docs/tools.md#result-records): which upstream server and
 * URI a document's text was compiled from, when, the digest of the bytes and the server's pin. It is
 * stored apart from `metadata`, written only by the compile path, so no tool call can forge it or
 * rewrite the URI that `compile-resource --all` reads again; metadata keys that look like it are
 * ordinary metadata.
 */
import type {
  DocumentOrigin,
  DocumentRecord,
  Metadata,
  Provenance,
  SearchHit,
  SourcedHit,
  StoredProvenance,
} from "./types.ts";

/**
 * The metadata keys compiled documents carried before provenance had a place of its own: kept as
 * ordinary metadata, and removed by the next compile that writes a version.
 */
export const LEGACY_PROVENANCE_KEYS: readonly string[] = [
  "mcp_server",
  "mcp_uri",
  "mcp_mime_type",
  "fetched_at",
  "sha256",
  "approval",
];

/** A metadata patch that removes the legacy provenance keys. */
export function dropLegacyProvenance(): Metadata {
  return Object.fromEntries(LEGACY_PROVENANCE_KEYS.map((k) => [k, null]));
}

/**
 * Stored provenance as shown with content whose checksum is `checksum`: `edited` when that
 * content is not what the compile stored.
 */
export function provenanceView(stored: StoredProvenance, checksum: string): Provenance {
  const { content_sha256, ...rest } = stored;
  return { ...rest, edited: content_sha256 !== checksum };
}

/** Provenance of `doc` from its stored record, or null when it has none. */
export function provenanceOf(
  doc: Pick<DocumentRecord, "checksum_sha256">,
  stored: StoredProvenance | null | undefined,
): Provenance | null {
  return stored ? provenanceView(stored, doc.checksum_sha256) : null;
}

/**
 * Hits with their document's source and provenance (`edited` against its current content); a
 * hit whose document has no origin (its brain was deleted meanwhile) is left out.
 */
export function withOrigins(
  hits: readonly SearchHit[],
  origins: ReadonlyMap<string, DocumentOrigin>,
): SourcedHit[] {
  return hits.flatMap((hit) => {
    const origin = origins.get(hit.document_id);
    if (!origin) return [];
    return [{ ...hit, source: origin.source, provenance: provenanceOf(origin, origin.provenance) }];
  });
}

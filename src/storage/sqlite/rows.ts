/** @module Row ↔ record mapping for the SQLite store. */
import type {
  Brain,
  DocumentOrigin,
  DocumentRecord,
  DocumentSource,
  Metadata,
  Visibility,
} from "../../core/types.ts";

/** A `documents` row as SQLite returns it. */
export interface DocumentRow {
  id: string;
  brain_id: string;
  path: string;
  title: string;
  source: string;
  content_type: string;
  byte_size: number;
  checksum_sha256: string;
  metadata: string;
  commit_sha: string;
  version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** Columns selected for a DocumentRecord. */
export const DOCUMENT_COLUMNS =
  "id, brain_id, path, title, source, content_type, byte_size, checksum_sha256, metadata, commit_sha, version, created_at, updated_at, deleted_at";

/** A documents row as a DocumentRecord. */
export function toDocument(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    brain_id: row.brain_id,
    title: row.title,
    path: row.path,
    source: row.source as DocumentSource,
    content_type: row.content_type,
    byte_size: row.byte_size,
    checksum_sha256: row.checksum_sha256,
    metadata: JSON.parse(row.metadata) as Metadata,
    commit_sha: row.commit_sha,
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

/** A document joined with its `document_provenance` row (null columns when it has none). */
export interface OriginRow {
  id: string;
  source: string;
  checksum_sha256: string;
  server: string | null;
  uri: string | null;
  mime_type: string | null;
  fetched_at: string | null;
  sha256: string | null;
  approval: string | null;
  version: number | null;
  content_sha256: string | null;
}

/** Selects an OriginRow from `documents d LEFT JOIN document_provenance p`. */
export const ORIGIN_COLUMNS =
  "d.id, d.source, d.checksum_sha256, p.server, p.uri, p.mime_type, p.fetched_at, p.sha256, p.approval, p.version, p.content_sha256";

/** An origin row as a DocumentOrigin. */
export function toOrigin(row: OriginRow): DocumentOrigin {
  return {
    source: row.source as DocumentSource,
    checksum_sha256: row.checksum_sha256,
    provenance: row.server === null ? null : {
      server: row.server,
      uri: row.uri!,
      mime_type: row.mime_type,
      fetched_at: row.fetched_at!,
      sha256: row.sha256!,
      approval: row.approval,
      version: row.version!,
      content_sha256: row.content_sha256!,
    },
  };
}

/** A brains row as a Brain. */
export function toBrain(row: Record<string, unknown>): Brain {
  return {
    id: row.id as string,
    slug: row.slug as string,
    name: row.name as string,
    visibility: row.visibility as Visibility,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

/** Tags held in `metadata.tags` (comma-joined on the wire). */
export function tagsOf(metadata: Metadata): string[] {
  const raw = metadata.tags;
  if (typeof raw !== "string" || raw === "") return [];
  return [...new Set(raw.split(",").map((t) => t.trim()).filter(Boolean))];
}

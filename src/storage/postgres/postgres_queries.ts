/** @module Read queries of the PostgreSQL documents port: timeline, stats, listings by path. */
import type { BrainStats, DocumentRecord, TimelineEntry } from "../../core/types.ts";
import { DOCUMENT_COLUMNS, type DocumentRow, toDocument } from "../sqlite/rows.ts";
import { prefixEnd } from "../sqlite/sqlite_path_listing.ts";
import type { Queries } from "./connection.ts";

/** Versions and deletions, newest first (a deletion after a version of the same instant). */
export async function timeline(
  sql: Queries,
  brainId: string,
  o: { limit: number; since?: string },
): Promise<TimelineEntry[]> {
  const since = o.since ?? "";
  const rows = await sql`
    SELECT * FROM (
      SELECT v.document_id, v.path, v.title, v.version, v.commit_sha,
             CASE WHEN v.version = 1 THEN 'created' ELSE 'updated' END AS action,
             v.created_at AS at, v.seq AS seq
        FROM document_versions v JOIN documents d ON d.id = v.document_id
       WHERE d.brain_id = ${brainId} AND v.created_at >= ${since}
      UNION ALL
      SELECT document_id, path, title, version, commit_sha, 'deleted', deleted_at,
             1000000000000000000 + seq
        FROM document_deletions WHERE brain_id = ${brainId} AND deleted_at >= ${since}
    ) entries ORDER BY at DESC, seq DESC LIMIT ${o.limit}`;
  return rows.map((r) => ({
    document_id: r.document_id as string,
    path: r.path as string,
    title: r.title as string,
    version: r.version as number,
    commit_sha: r.commit_sha as string,
    action: r.action as TimelineEntry["action"],
    at: r.at as string,
  }));
}

/** Counts and sizes for one brain. */
export async function brainStats(sql: Queries, brainId: string): Promise<BrainStats> {
  const [d] = await sql`
    SELECT count(*) FILTER (WHERE deleted_at IS NULL) AS live,
           count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted,
           coalesce(sum(byte_size) FILTER (WHERE deleted_at IS NULL), 0)::bigint AS bytes,
           max(updated_at) AS last
      FROM documents WHERE brain_id = ${brainId}`;
  const [{ versions, chunks, tags }] = await sql`
    SELECT (SELECT count(*) FROM document_versions v JOIN documents d ON d.id = v.document_id
             WHERE d.brain_id = ${brainId}) AS versions,
           (SELECT count(*) FROM chunks WHERE brain_id = ${brainId}) AS chunks,
           (SELECT count(DISTINCT tag) FROM document_tags WHERE brain_id = ${brainId}) AS tags`;
  return {
    brain_id: brainId,
    documents: d.live as number,
    deleted_documents: d.deleted as number,
    versions: versions as number,
    chunks: chunks as number,
    bytes: d.bytes as number,
    tags: tags as number,
    last_updated_at: (d.last as string | null) ?? null,
  };
}

/**
 * Live documents whose path starts with `prefix`, oldest first: a range over `path` (not LIKE,
 * where `%` and `_` in a path would be wildcards), which the (brain_id, path) index answers.
 */
export async function listDocuments(
  sql: Queries,
  brainId: string,
  prefix: string,
): Promise<DocumentRecord[]> {
  const rows = await sql.unsafe<DocumentRow[]>(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents
      WHERE brain_id = $1 AND deleted_at IS NULL
        AND path >= $2 AND ($3::text IS NULL OR path < $3)
      ORDER BY created_at, seq`,
    [brainId, prefix, prefixEnd(prefix)],
  );
  return rows.map(toDocument);
}

/** Up to `limit` live documents under `prefix` in path order, after the path `after` when given. */
export async function documentPage(
  sql: Queries,
  brainId: string,
  options: { prefix: string; after?: string; limit: number },
): Promise<DocumentRecord[]> {
  const rows = await sql.unsafe<DocumentRow[]>(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents
      WHERE brain_id = $1 AND deleted_at IS NULL
        AND path >= $2 AND ($3::text IS NULL OR path < $3) AND ($4::text IS NULL OR path > $4)
      ORDER BY path LIMIT $5`,
    [brainId, options.prefix, prefixEnd(options.prefix), options.after ?? null, options.limit],
  );
  return rows.map(toDocument);
}

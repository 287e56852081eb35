/** @module Read queries for the SQLite store: timeline, backlinks, tags, stats (search: chunk_search.ts). */
import type { Prepares } from "./database.ts";
import type {
  Backlink,
  BrainStats,
  DocumentRecord,
  TagCount,
  TimelineEntry,
} from "../../core/types.ts";
import { wikiKey } from "../../core/markdown/links.ts";

/** Versions and deletions, newest first. */
export function timeline(
  db: Prepares,
  brainId: string,
  o: { limit: number; since?: string },
): TimelineEntry[] {
  const since = o.since ?? "";
  return db.prepare(
    `SELECT * FROM (
       SELECT v.document_id, v.path, v.title, v.version, v.commit_sha,
              CASE WHEN v.version = 1 THEN 'created' ELSE 'updated' END AS action, v.created_at AS at, v.rowid AS seq
         FROM document_versions v JOIN documents d ON d.id = v.document_id
        WHERE d.brain_id = ? AND v.created_at >= ?
       UNION ALL
       SELECT document_id, path, title, version, commit_sha, 'deleted', deleted_at, 1e18 + rowid
         FROM document_deletions WHERE brain_id = ? AND deleted_at >= ?
     ) ORDER BY at DESC, seq DESC LIMIT ?`,
  ).all(brainId, since, brainId, since, o.limit).map((r) => ({
    document_id: r.document_id as string,
    path: r.path as string,
    title: r.title as string,
    version: r.version as number,
    commit_sha: r.commit_sha as string,
    action: r.action as TimelineEntry["action"],
    at: r.at as string,
  }));
}

/** Live documents whose links point at `target` by path, title or file name. */
export function backlinks(db: Prepares, brainId: string, target: DocumentRecord): Backlink[] {
  const pathKey = wikiKey(target.path);
  const baseName = pathKey.split("/").pop() ?? pathKey;
  return db.prepare(
    `SELECT d.id AS document_id, d.path, d.title, l.kind, l.text
       FROM links l JOIN documents d ON d.id = l.source_document_id
      WHERE l.brain_id = ? AND d.deleted_at IS NULL AND d.id != ?
        AND (l.target_path = ? OR l.target_key IN (?, ?)
             OR substr(?, -length(l.target_key) - 1) = '/' || l.target_key)
      ORDER BY d.updated_at DESC`,
  ).all(brainId, target.id, target.path, target.title.toLowerCase(), baseName, `/${pathKey}`).map((
    r,
  ) => ({
    document_id: r.document_id as string,
    path: r.path as string,
    title: r.title as string,
    kind: r.kind as Backlink["kind"],
    text: r.text as string,
  }));
}

/** Tags with the number of live documents carrying each, most used first. */
export function tagCounts(db: Prepares, brainId: string): TagCount[] {
  return db.prepare(
    "SELECT tag, count(*) AS count FROM document_tags WHERE brain_id = ? GROUP BY tag ORDER BY count DESC, tag",
  ).all(brainId).map((r) => ({ tag: r.tag as string, count: r.count as number }));
}

/** Counts and sizes for one brain. */
export function brainStats(db: Prepares, brainId: string): BrainStats {
  const d = db.prepare(
    `SELECT count(*) FILTER (WHERE deleted_at IS NULL) AS live, count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted,
            coalesce(sum(byte_size) FILTER (WHERE deleted_at IS NULL), 0) AS bytes, max(updated_at) AS last
       FROM documents WHERE brain_id = ?`,
  ).get(brainId) as Record<string, number | string | null>;
  const one = (sql: string) => (db.prepare(sql).get(brainId) as { n: number }).n;
  return {
    brain_id: brainId,
    documents: d.live as number,
    deleted_documents: d.deleted as number,
    versions: one(
      "SELECT count(*) AS n FROM document_versions v JOIN documents d ON d.id = v.document_id WHERE d.brain_id = ?",
    ),
    chunks: one("SELECT count(*) AS n FROM chunks WHERE brain_id = ?"),
    bytes: d.bytes as number,
    tags: one("SELECT count(DISTINCT tag) AS n FROM document_tags WHERE brain_id = ?"),
    last_updated_at: (d.last as string | null) ?? null,
  };
}

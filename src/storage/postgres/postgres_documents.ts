/**
 * @module The DocumentStore port over PostgreSQL: the `documents` row is a document's current
 * state, `document_versions` every version with its content, `document_provenance` a compiled
 * document's provenance; writing a version also replaces the document's chunks, links and tags,
 * in the same transaction.
 */
import { EngramError } from "../../core/errors.ts";
import type { DocumentRef, DocumentStore, VersionWrite } from "../../core/ports/document_store.ts";
import type {
  BrainStats,
  DocumentOrigin,
  DocumentRecord,
  DocumentWithContent,
  TimelineEntry,
} from "../../core/types.ts";
import {
  DOCUMENT_COLUMNS,
  type DocumentRow,
  ORIGIN_COLUMNS,
  type OriginRow,
  tagsOf,
  toDocument,
  toOrigin,
} from "../sqlite/rows.ts";
import type { PostgresConnection, Queries } from "./connection.ts";
import { afterFailedStatement, isUniqueViolation } from "./pg_errors.ts";
import { brainStats, documentPage, listDocuments, timeline } from "./postgres_queries.ts";
import { writeIndex, writeTags } from "./postgres_writes.ts";
import type { ChangeNotifier } from "./notify.ts";

/** Documents and versions over one pool. */
export class PostgresDocumentStore implements DocumentStore {
  readonly #conn: PostgresConnection;
  readonly #changes?: Pick<ChangeNotifier, "watch">;

  /** `options.changes`: the node's LISTEN/NOTIFY, for `watchChanges` (notify.ts). */
  constructor(conn: PostgresConnection, options: { changes?: Pick<ChangeNotifier, "watch"> } = {}) {
    this.#conn = conn;
    this.#changes = options.changes;
  }

  /** Another node's commit to documents, or one missed while not listening (notify.ts). */
  watchChanges(listener: () => void): () => void {
    return this.#changes?.watch((notice) => {
      if (notice.origin === "local") return;
      if (notice.topics.includes("documents") || notice.topics.includes("*")) listener();
    }) ?? (() => {});
  }

  findDocument(brainId: string, ref: DocumentRef): Promise<DocumentRecord | null> {
    return this.#conn.read((sql) => findRow(sql, brainId, ref));
  }

  readDocument(
    brainId: string,
    ref: DocumentRef,
    version?: number,
  ): Promise<DocumentWithContent | null> {
    return this.#conn.read((sql) => readDocument(sql, brainId, ref, version));
  }

  /**
   * The document's row is locked first (when it exists), so two nodes writing the same document
   * queue and the second finds the version moved; a path another node took meanwhile fails the
   * insert, and is the same stale-version conflict.
   */
  writeVersion(write: VersionWrite): Promise<DocumentRecord> {
    return this.#conn.write(async (sql) => {
      this.#conn.touched("documents");
      const d = write.document;
      const [current] = await sql<{ brain_id: string; version: number }[]>`
        SELECT brain_id, version FROM documents WHERE id = ${d.id} FOR UPDATE`;
      if (current && current.brain_id !== d.brain_id) {
        throw new EngramError(
          "conflict",
          `document id ${d.id} belongs to another brain; write it without an id to create a new document`,
        );
      }
      const have = current?.version;
      if (have !== write.expectedVersion) {
        throw new EngramError(
          "conflict",
          `document ${d.path} changed while it was being written; retry`,
          { cause: "stale-version" },
        );
      }
      const [clash] = await sql`
        SELECT id FROM documents WHERE brain_id = ${d.brain_id} AND path = ${d.path} AND id <> ${d.id}`;
      if (clash) throw pathTaken(d.path, clash.id as string);
      const version = (have ?? 0) + 1;
      const meta = JSON.stringify(d.metadata);
      // One upsert: a new document gets its row, an existing one its new current version.
      await sql`
        INSERT INTO documents (id, brain_id, path, title, source, content_type, byte_size,
          checksum_sha256, metadata, commit_sha, version, created_at, updated_at, deleted_at)
        VALUES (${d.id}, ${d.brain_id}, ${d.path}, ${d.title}, ${d.source}, ${d.content_type},
          ${d.byte_size}, ${d.checksum_sha256}, ${meta}, ${d.commit_sha}, ${version},
          ${d.created_at}, ${d.updated_at}, NULL)
        ON CONFLICT (id) DO UPDATE SET path = excluded.path, title = excluded.title,
          source = excluded.source, content_type = excluded.content_type,
          byte_size = excluded.byte_size, checksum_sha256 = excluded.checksum_sha256,
          metadata = excluded.metadata, commit_sha = excluded.commit_sha,
          version = excluded.version, updated_at = excluded.updated_at, deleted_at = NULL`
        .catch((err) => {
          throw isUniqueViolation(err) ? afterFailedStatement(pathTaken(d.path, "another")) : err;
        });
      await sql`
        INSERT INTO document_versions (document_id, version, commit_sha, title, path, content,
          metadata, checksum_sha256, byte_size, created_at)
        VALUES (${d.id}, ${version}, ${d.commit_sha}, ${d.title}, ${d.path}, ${write.content},
          ${meta}, ${d.checksum_sha256}, ${d.byte_size}, ${d.updated_at})`;
      await writeProvenance(sql, write, version);
      const target = { id: d.id, brainId: d.brain_id, title: d.title };
      await writeIndex(sql, target, write);
      await writeTags(sql, target, tagsOf(d.metadata));
      return { ...d, version, deleted_at: null };
    });
  }

  origins(brainId: string, documentIds: readonly string[]): Promise<Map<string, DocumentOrigin>> {
    return this.#conn.read(async (sql) => {
      const ids = [...new Set(documentIds)];
      if (ids.length === 0) return new Map();
      const rows = await sql.unsafe<OriginRow[]>(
        `SELECT ${ORIGIN_COLUMNS} FROM documents d
           LEFT JOIN document_provenance p ON p.document_id = d.id
          WHERE d.brain_id = $1 AND d.id = ANY($2::text[])`,
        [brainId, ids],
      );
      return new Map(rows.map((r) => [r.id, toOrigin(r)]));
    });
  }

  markDeleted(brainId: string, documentId: string, at: string): Promise<DocumentRecord> {
    return this.#conn.write(async (sql) => {
      this.#conn.touched("documents");
      const changed = await sql`
        UPDATE documents SET deleted_at = ${at}, updated_at = ${at}
         WHERE id = ${documentId} AND brain_id = ${brainId} AND deleted_at IS NULL`;
      if (changed.count === 0) {
        throw new EngramError("not_found", `document ${documentId} not found`);
      }
      await sql`
        INSERT INTO document_deletions (document_id, brain_id, path, title, version, commit_sha,
          deleted_at)
        SELECT id, brain_id, path, title, version, commit_sha, deleted_at
          FROM documents WHERE id = ${documentId}`;
      await sql`DELETE FROM chunks WHERE document_id = ${documentId}`;
      await sql`DELETE FROM links WHERE source_document_id = ${documentId}`;
      await sql`DELETE FROM document_tags WHERE document_id = ${documentId}`;
      return (await findRow(sql, brainId, { id: documentId }))!;
    });
  }

  documentIdTaken(id: string): Promise<boolean> {
    return this.#conn.read(async (sql) =>
      (await sql`SELECT 1 FROM documents WHERE id = ${id}`).length > 0
    );
  }

  listDocuments(brainId: string, options: { prefix: string }): Promise<DocumentRecord[]> {
    return this.#conn.read((sql) => listDocuments(sql, brainId, options.prefix));
  }

  documentPage(
    brainId: string,
    options: { prefix: string; after?: string; limit: number },
  ): Promise<DocumentRecord[]> {
    return this.#conn.read((sql) => documentPage(sql, brainId, options));
  }

  async *liveDocuments(brainId: string): AsyncIterable<DocumentWithContent> {
    const ids = await this.#conn.read((sql) =>
      sql<{ id: string }[]>`
        SELECT id FROM documents WHERE brain_id = ${brainId} AND deleted_at IS NULL
         ORDER BY created_at, seq`
    );
    for (const { id } of ids) {
      const doc = await this.readDocument(brainId, { id });
      if (doc && doc.deleted_at === null) yield doc;
    }
  }

  timeline(brainId: string, options: { limit: number; since?: string }): Promise<TimelineEntry[]> {
    return this.#conn.read((sql) => timeline(sql, brainId, options));
  }

  stats(brainId: string): Promise<BrainStats> {
    return this.#conn.read((sql) => brainStats(sql, brainId));
  }
}

/** Records the compile's provenance, or drops it when another source replaced the document. */
async function writeProvenance(sql: Queries, write: VersionWrite, version: number): Promise<void> {
  const d = write.document;
  const p = write.provenance;
  if (!p) {
    if (d.source !== "compile") {
      await sql`DELETE FROM document_provenance WHERE document_id = ${d.id}`;
    }
    return;
  }
  await sql`
    INSERT INTO document_provenance (document_id, server, uri, mime_type, fetched_at, sha256,
      approval, version, content_sha256)
    VALUES (${d.id}, ${p.server}, ${p.uri}, ${p.mime_type}, ${p.fetched_at}, ${p.sha256},
      ${p.approval}, ${version}, ${d.checksum_sha256})
    ON CONFLICT (document_id) DO UPDATE SET server = excluded.server, uri = excluded.uri,
      mime_type = excluded.mime_type, fetched_at = excluded.fetched_at, sha256 = excluded.sha256,
      approval = excluded.approval, version = excluded.version,
      content_sha256 = excluded.content_sha256`;
}

/** A document's current row by id or path, or null. */
async function findRow(
  sql: Queries,
  brainId: string,
  ref: DocumentRef,
): Promise<DocumentRecord | null> {
  const [column, value] = ref.id !== undefined ? ["id", ref.id] : ["path", ref.path];
  const [row] = await sql.unsafe<DocumentRow[]>(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE brain_id = $1 AND ${column} = $2`,
    [brainId, value],
  );
  return row ? toDocument(row) : null;
}

/** A document with content at `version` (its current one when omitted), or null. */
async function readDocument(
  sql: Queries,
  brainId: string,
  ref: DocumentRef,
  version?: number,
): Promise<DocumentWithContent | null> {
  const doc = await findRow(sql, brainId, ref);
  if (!doc) return null;
  const v = version ?? doc.version;
  const [row] = await sql`
    SELECT version, commit_sha, title, path, content, metadata, checksum_sha256, byte_size,
           created_at
      FROM document_versions WHERE document_id = ${doc.id} AND version = ${v}`;
  if (!row) return null;
  if (v === doc.version) return { ...doc, content: row.content as string };
  return {
    ...doc,
    version: v,
    commit_sha: row.commit_sha as string,
    title: row.title as string,
    path: row.path as string,
    metadata: JSON.parse(row.metadata as string),
    checksum_sha256: row.checksum_sha256 as string,
    byte_size: row.byte_size as number,
    updated_at: row.created_at as string,
    content: row.content as string,
  };
}

function pathTaken(path: string, holder: string): EngramError {
  return new EngramError("conflict", `path ${path} is already used by document ${holder}`, {
    cause: "stale-version",
  });
}

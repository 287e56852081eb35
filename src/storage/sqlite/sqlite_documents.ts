/**
 * @module The DocumentStore port over SQLite: the `documents` row is a document's current state,
 * `document_versions` every version with its content, `document_provenance` a compiled document's
 * provenance; writing a version also replaces the document's chunks (and so its FTS rows), links
 * and tags.
 */
import type { SQLInputValue } from "node:sqlite";
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
} from "./rows.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { documentPage, listDocuments } from "./sqlite_path_listing.ts";
import { brainStats, timeline } from "./sqlite_queries.ts";
import { appendChunks, writeIndex, writeTags } from "./sqlite_writes.ts";

/**
 * Chunks indexed in one synchronous stretch: about 0.2 ms each with their two full-text indexes,
 * so about 100 ms before other callers are let in.
 */
const CHUNKS_PER_WRITE = 500;

/** Documents and versions over one connection. */
export class SqliteDocumentStore implements DocumentStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  findDocument(brainId: string, ref: DocumentRef): Promise<DocumentRecord | null> {
    return this.#conn.read(() => this.#findRow(brainId, ref));
  }

  readDocument(
    brainId: string,
    ref: DocumentRef,
    version?: number,
  ): Promise<DocumentWithContent | null> {
    return this.#conn.read(() => this.#read(brainId, ref, version));
  }

  async writeVersion(write: VersionWrite): Promise<DocumentRecord> {
    if (write.chunks.length <= CHUNKS_PER_WRITE) return await this.#writeVersion(write);
    // A long document (a large file) is indexed in slices, letting the event loop in between:
    // other callers' reads are answered meanwhile, as of the last commit (sqlite_connection.ts),
    // and the one unit of work keeps anyone from seeing part of the document.
    return await this.#conn.withTransaction(async () => {
      const first = write.chunks.slice(0, CHUNKS_PER_WRITE);
      const record = await this.#writeVersion({ ...write, chunks: first });
      const target = { id: record.id, brainId: record.brain_id, title: record.title };
      for (let at = CHUNKS_PER_WRITE; at < write.chunks.length; at += CHUNKS_PER_WRITE) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        const slice = write.chunks.slice(at, at + CHUNKS_PER_WRITE);
        await this.#conn.write(() => appendChunks(this.#conn, target, slice));
      }
      return record;
    });
  }

  #writeVersion(write: VersionWrite): Promise<DocumentRecord> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      const d = write.document;
      const current = this.#conn.prepare("SELECT brain_id, version FROM documents WHERE id = ?")
        .get(d.id) as { brain_id: string; version: number } | undefined;
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
      const clash = this.#conn.prepare(
        "SELECT id FROM documents WHERE brain_id = ? AND path = ? AND id != ?",
      ).get(d.brain_id, d.path, d.id) as { id: string } | undefined;
      if (clash) {
        throw new EngramError(
          "conflict",
          `path ${d.path} is already used by document ${clash.id}`,
          { cause: "stale-version" },
        );
      }
      const version = (have ?? 0) + 1;
      const meta = JSON.stringify(d.metadata);
      // One upsert: a new document gets its row, an existing one its new current version.
      this.#conn.prepare(
        `INSERT INTO documents (id, brain_id, path, title, source, content_type, byte_size, checksum_sha256, metadata,
           commit_sha, version, created_at, updated_at, deleted_at)
         VALUES ($id, $brain_id, $path, $title, $source, $content_type, $byte_size, $checksum, $metadata,
           $commit_sha, $version, $created_at, $updated_at, NULL)
         ON CONFLICT (id) DO UPDATE SET path = excluded.path, title = excluded.title, source = excluded.source,
           content_type = excluded.content_type, byte_size = excluded.byte_size,
           checksum_sha256 = excluded.checksum_sha256, metadata = excluded.metadata, commit_sha = excluded.commit_sha,
           version = excluded.version, updated_at = excluded.updated_at, deleted_at = NULL`,
      ).run({
        id: d.id,
        brain_id: d.brain_id,
        path: d.path,
        title: d.title,
        source: d.source,
        content_type: d.content_type,
        byte_size: d.byte_size,
        checksum: d.checksum_sha256,
        metadata: meta,
        commit_sha: d.commit_sha,
        version,
        created_at: d.created_at,
        updated_at: d.updated_at,
      });
      this.#conn.prepare(
        `INSERT INTO document_versions (document_id, version, commit_sha, title, path, content, metadata, checksum_sha256, byte_size, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        d.id,
        version,
        d.commit_sha,
        d.title,
        d.path,
        write.content,
        meta,
        d.checksum_sha256,
        d.byte_size,
        d.updated_at,
      );
      this.#writeProvenance(write, version);
      const target = { id: d.id, brainId: d.brain_id, title: d.title };
      writeIndex(this.#conn, target, write);
      writeTags(this.#conn, target, tagsOf(d.metadata));
      return { ...d, version, deleted_at: null };
    });
  }

  /** Records the compile's provenance, or drops it when another source replaced the document. */
  #writeProvenance(write: VersionWrite, version: number): void {
    const d = write.document;
    const p = write.provenance;
    if (!p) {
      if (d.source !== "compile") {
        this.#conn.prepare("DELETE FROM document_provenance WHERE document_id = ?").run(d.id);
      }
      return;
    }
    this.#conn.prepare(
      `INSERT OR REPLACE INTO document_provenance (document_id, server, uri, mime_type, fetched_at, sha256, approval, version, content_sha256)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.id,
      p.server,
      p.uri,
      p.mime_type,
      p.fetched_at,
      p.sha256,
      p.approval,
      version,
      d.checksum_sha256,
    );
  }

  origins(brainId: string, documentIds: readonly string[]): Promise<Map<string, DocumentOrigin>> {
    return this.#conn.read(() => {
      const rows = this.#conn.prepare(
        `SELECT ${ORIGIN_COLUMNS} FROM documents d LEFT JOIN document_provenance p ON p.document_id = d.id
         WHERE d.brain_id = ? AND d.id IN (SELECT value FROM json_each(?))`,
      ).all(brainId, JSON.stringify([...new Set(documentIds)])) as unknown as OriginRow[];
      return new Map(rows.map((r) => [r.id, toOrigin(r)]));
    });
  }

  markDeleted(brainId: string, documentId: string, at: string): Promise<DocumentRecord> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      const changed = this.#conn.prepare(
        "UPDATE documents SET deleted_at = ?, updated_at = ? WHERE id = ? AND brain_id = ? AND deleted_at IS NULL",
      ).run(at, at, documentId, brainId);
      if (changed.changes === 0) {
        throw new EngramError("not_found", `document ${documentId} not found`);
      }
      this.#conn.prepare(
        `INSERT INTO document_deletions (document_id, brain_id, path, title, version, commit_sha, deleted_at)
         SELECT id, brain_id, path, title, version, commit_sha, deleted_at FROM documents WHERE id = ?`,
      ).run(documentId);
      this.#conn.prepare("DELETE FROM chunks WHERE document_id = ?").run(documentId);
      this.#conn.prepare("DELETE FROM links WHERE source_document_id = ?").run(documentId);
      this.#conn.prepare("DELETE FROM document_tags WHERE document_id = ?").run(documentId);
      return this.#findRow(brainId, { id: documentId })!;
    });
  }

  documentIdTaken(id: string): Promise<boolean> {
    return this.#conn.read(() =>
      this.#conn.prepare("SELECT 1 FROM documents WHERE id = ?").get(id) !== undefined
    );
  }

  listDocuments(brainId: string, options: { prefix: string }): Promise<DocumentRecord[]> {
    return this.#conn.read(() => listDocuments(this.#conn, brainId, options.prefix));
  }

  documentPage(
    brainId: string,
    options: { prefix: string; after?: string; limit: number },
  ): Promise<DocumentRecord[]> {
    return this.#conn.read(() => documentPage(this.#conn, brainId, options));
  }

  async *liveDocuments(brainId: string): AsyncIterable<DocumentWithContent> {
    const ids = await this.#conn.read(() =>
      this.#conn.prepare(
        "SELECT id FROM documents WHERE brain_id = ? AND deleted_at IS NULL ORDER BY created_at, rowid",
      ).all(brainId) as { id: string }[]
    );
    for (const { id } of ids) {
      const doc = await this.readDocument(brainId, { id });
      if (doc && doc.deleted_at === null) yield doc;
    }
  }

  timeline(brainId: string, options: { limit: number; since?: string }): Promise<TimelineEntry[]> {
    return this.#conn.read(() => timeline(this.#conn, brainId, options));
  }

  stats(brainId: string): Promise<BrainStats> {
    return this.#conn.read(() => brainStats(this.#conn, brainId));
  }

  #read(brainId: string, ref: DocumentRef, version?: number): DocumentWithContent | null {
    const doc = this.#findRow(brainId, ref);
    if (!doc) return null;
    const v = version ?? doc.version;
    const row = this.#conn.prepare(
      "SELECT version, commit_sha, title, path, content, metadata, checksum_sha256, byte_size, created_at FROM document_versions WHERE document_id = ? AND version = ?",
    ).get(doc.id, v) as Record<string, string | number> | undefined;
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

  #findRow(brainId: string, ref: DocumentRef): DocumentRecord | null {
    const [col, val]: [string, SQLInputValue] = ref.id !== undefined
      ? ["id", ref.id]
      : ["path", ref.path];
    const row = this.#conn.prepare(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE brain_id = ? AND ${col} = ?`,
    ).get(brainId, val) as DocumentRow | undefined;
    return row ? toDocument(row) : null;
  }
}

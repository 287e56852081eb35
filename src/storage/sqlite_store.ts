/** @module The SQLite implementation of the MemoryStore port. */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { EngramError } from "../core/errors.ts";
import type { BrainDeletion, DocumentRef, MemoryStore, VersionWrite } from "../core/store.ts";
import type { Scope } from "../core/limits.ts";
import type { StoredToken, TokenRecord, TokenStore } from "../core/bearer_tokens.ts";
import type {
  AuditEntry,
  Backlink,
  Brain,
  BrainStats,
  ChunkInput,
  DocumentRecord,
  DocumentWithContent,
  JobRecord,
  LinkInput,
  LockHolder,
  SearchHit,
  SearchQuery,
  SessionRecord,
  StoredMessage,
  TagCount,
  TimelineEntry,
  Visibility,
} from "../core/types.ts";
import type { Logger } from "../core/logger.ts";
import { AuditWriter } from "./audit_writer.ts";
import { DEFAULT_SEARCH_CACHE_MB, SearchCache } from "./search_cache.ts";
import { DatabaseStamp, type ReadCache, StampedCache } from "./stamped_cache.ts";
import { writeIndex, writeTags } from "./sqlite_writes.ts";
import { SqliteConnection } from "./sqlite_connection.ts";
import { DOCUMENT_COLUMNS, type DocumentRow, tagsOf, toBrain, toDocument } from "./rows.ts";
import { backlinks, brainStats, searchChunks, tagCounts, timeline } from "./sqlite_queries.ts";
import {
  claimJob,
  completeJob,
  enqueueJob,
  failJob,
  findActiveJob,
  getJob,
  nextDelayedJobAt,
  renewJob,
} from "./sqlite_jobs.ts";
import { documentPage, listDocuments } from "./sqlite_path_listing.ts";
import { deleteBrainRows, renameBrainRow } from "./sqlite_brains.ts";
import * as sessions from "./sqlite_sessions.ts";
import * as locks from "./sqlite_locks.ts";
import * as vectors from "./sqlite_vectors.ts";
import * as tokens from "./sqlite_tokens.ts";

/** Re-exported where callers of `batch()` import it from. */
export { BATCH_ROLLED_BACK } from "./sqlite_connection.ts";

/** MemoryStore (and TokenStore) over one node:sqlite connection. */
export class SqliteStore extends SqliteConnection implements MemoryStore, TokenStore {
  #audit: AuditWriter;
  #searches: SearchCache;
  /** What the read caches were computed from; bumped by writes to documents, brains and tokens. */
  #stamp: DatabaseStamp;
  /** Brains are read on every call to resolve its brain. */
  #brains = new StampedCache<Brain[]>(1);
  /** Token rows by hash: every HTTP request verifies its bearer token. Found rows only. */
  #tokens = new StampedCache<StoredToken>(1024);

  /**
   * `options.searchCacheMb`: the search cache's budget in MiB (0 turns it off); `options.logger`
   * hears about audit rows that could not be written.
   */
  constructor(db: DatabaseSync, options: { searchCacheMb?: number; logger?: Logger } = {}) {
    super(db);
    this.#audit = new AuditWriter(db, this.cached, { logger: options.logger });
    this.#stamp = new DatabaseStamp(() =>
      (this.prepare("PRAGMA data_version").get() as { data_version: number }).data_version
    );
    this.#searches = new SearchCache(
      (options.searchCacheMb ?? DEFAULT_SEARCH_CACHE_MB) * 1024 * 1024,
    );
  }

  listBrains(): Promise<Brain[]> {
    return this.run(() => [...this.#allBrains()]);
  }

  findBrain(slugOrId: string): Promise<Brain | null> {
    return this.run(() =>
      this.#allBrains().find((b) => b.slug === slugOrId || b.id === slugOrId) ?? null
    );
  }

  #allBrains(): Brain[] {
    return this.#throughCache(
      this.#brains,
      "",
      () => this.prepare("SELECT * FROM brains ORDER BY created_at, rowid").all().map(toBrain),
    )!;
  }

  /**
   * `read()`, answered from `cache` while the database stamp is unchanged. Inside a transaction
   * the read may see writes that are later rolled back, so it is neither cached nor answered from
   * the cache. A null read is not cached.
   */
  #throughCache<K, V>(cache: ReadCache<K, V>, key: K, read: () => V | null): V | null {
    if (this.db.isTransaction) return read();
    const stamp = this.#stamp.current();
    const hit = cache.get(key, stamp);
    if (hit !== undefined) return hit;
    const value = read();
    return value === null ? null : cache.set(key, stamp, value);
  }

  createBrain(
    input: { id: string; slug: string; name: string; visibility: Visibility },
  ): Promise<Brain> {
    return this.run(() => {
      const now = new Date().toISOString();
      const inserted = this.prepare(
        "INSERT INTO brains (id, slug, name, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING",
      ).run(input.id, input.slug, input.name, input.visibility, now, now);
      this.#stamp.bump();
      if (inserted.changes === 0) {
        throw new EngramError(
          "conflict",
          `brain slug "${input.slug}" is already taken; choose another --slug`,
        );
      }
      return { ...input, created_at: now, updated_at: now };
    });
  }

  deleteBrain(brainId: string, options: { at: string }): Promise<BrainDeletion> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        return deleteBrainRows(this.cached, brainId, options.at);
      })
    );
  }

  renameBrain(brainId: string, change: { name?: string; slug?: string }): Promise<Brain> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        return renameBrainRow(this.cached, brainId, { ...change, at: new Date().toISOString() });
      })
    );
  }

  findDocument(brainId: string, ref: DocumentRef): Promise<DocumentRecord | null> {
    return this.run(() => this.#findRow(brainId, ref));
  }

  readDocument(
    brainId: string,
    ref: DocumentRef,
    version?: number,
  ): Promise<DocumentWithContent | null> {
    return this.run(() => {
      const doc = this.#findRow(brainId, ref);
      if (!doc) return null;
      const v = version ?? doc.version;
      const row = this.prepare(
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
    });
  }

  writeVersion(write: VersionWrite): Promise<DocumentRecord> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        const d = write.document;
        const current = this.#findRow(d.brain_id, { id: d.id });
        const have = current?.version;
        if (have !== write.expectedVersion) {
          throw new EngramError(
            "conflict",
            `document ${d.path} changed while it was being written; retry`,
            {
              cause: "stale-version",
            },
          );
        }
        const clash = this.prepare(
          "SELECT id FROM documents WHERE brain_id = ? AND path = ? AND id != ?",
        ).get(
          d.brain_id,
          d.path,
          d.id,
        ) as { id: string } | undefined;
        if (clash) {
          throw new EngramError(
            "conflict",
            `path ${d.path} is already used by document ${clash.id}`,
            {
              cause: "stale-version",
            },
          );
        }
        const version = (have ?? 0) + 1;
        const meta = JSON.stringify(d.metadata);
        // One upsert: a new document gets its row, an existing one its new current version.
        this.prepare(
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
        this.prepare(
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
        writeIndex(this.cached, { id: d.id, brainId: d.brain_id, title: d.title }, write);
        writeTags(this.cached, { id: d.id, brainId: d.brain_id }, tagsOf(d.metadata));
        return { ...d, version, deleted_at: null };
      })
    );
  }

  markDeleted(brainId: string, documentId: string, at: string): Promise<DocumentRecord> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        const changed = this.prepare(
          "UPDATE documents SET deleted_at = ?, updated_at = ? WHERE id = ? AND brain_id = ? AND deleted_at IS NULL",
        ).run(at, at, documentId, brainId);
        if (changed.changes === 0) {
          throw new EngramError("not_found", `document ${documentId} not found`);
        }
        this.prepare("DELETE FROM chunks WHERE document_id = ?").run(documentId);
        this.prepare("DELETE FROM links WHERE source_document_id = ?").run(documentId);
        this.prepare("DELETE FROM document_tags WHERE document_id = ?").run(documentId);
        return this.#findRow(brainId, { id: documentId })!;
      })
    );
  }

  search(query: SearchQuery): Promise<SearchHit[]> {
    return this.run(() => {
      const search = () => searchChunks(this.cached, query);
      if (!this.#searches.enabled) return search();
      return this.#throughCache(this.#searches, query, search)!;
    });
  }

  timeline(brainId: string, options: { limit: number; since?: string }): Promise<TimelineEntry[]> {
    return this.run(() => timeline(this.cached, brainId, options));
  }

  backlinks(brainId: string, target: DocumentRecord): Promise<Backlink[]> {
    return this.run(() => backlinks(this.cached, brainId, target));
  }

  tags(brainId: string): Promise<TagCount[]> {
    return this.run(() => tagCounts(this.cached, brainId));
  }

  stats(brainId: string): Promise<BrainStats> {
    return this.run(() => brainStats(this.cached, brainId));
  }

  async *liveDocuments(brainId: string): AsyncIterable<DocumentWithContent> {
    const ids = this.prepare(
      "SELECT id FROM documents WHERE brain_id = ? AND deleted_at IS NULL ORDER BY rowid",
    ).all(brainId) as { id: string }[];
    for (const { id } of ids) {
      const doc = await this.readDocument(brainId, { id });
      if (doc) yield doc;
    }
  }

  replaceIndex(documentId: string, chunks: ChunkInput[], links: LinkInput[]): Promise<void> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        const row = this.prepare("SELECT brain_id, title FROM documents WHERE id = ?").get(
          documentId,
        ) as
          | { brain_id: string; title: string }
          | undefined;
        if (row) {
          writeIndex(this.cached, { id: documentId, brainId: row.brain_id, title: row.title }, {
            chunks,
            links,
          });
        }
      })
    );
  }

  chunkCount(documentId: string): Promise<number> {
    return this.run(() =>
      (this.prepare("SELECT count(*) AS n FROM chunks WHERE document_id = ?").get(
        documentId,
      ) as { n: number }).n
    );
  }

  documentIdTaken(id: string): Promise<boolean> {
    return this.run(() =>
      this.prepare("SELECT 1 FROM documents WHERE id = ?").get(id) !== undefined
    );
  }

  enqueueJob(
    job: { id: string; kind: string; brain_id: string; payload: Record<string, unknown> },
  ): Promise<JobRecord> {
    return this.run(() => enqueueJob(this.db, job));
  }

  claimJob(leaseMs: number): Promise<JobRecord | null> {
    return this.run(() => claimJob(this.db, leaseMs));
  }

  renewJob(id: string, leaseMs: number): Promise<void> {
    return this.run(() => renewJob(this.db, id, leaseMs));
  }

  completeJob(id: string, result: Record<string, unknown>): Promise<void> {
    return this.run(() => completeJob(this.db, id, result));
  }

  failJob(id: string, error: string, options: { retry: boolean; delayMs?: number }): Promise<void> {
    return this.run(() => failJob(this.db, id, error, options));
  }

  nextDelayedJobAt(): Promise<string | null> {
    return this.run(() => nextDelayedJobAt(this.db));
  }

  findActiveJob(
    kind: string,
    brainId: string,
    payload: Record<string, string>,
  ): Promise<JobRecord | null> {
    return this.run(() => findActiveJob(this.db, { kind, brainId, payload }));
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.run(() => getJob(this.db, id));
  }

  listDocuments(brainId: string, options: { prefix: string }): Promise<DocumentRecord[]> {
    return this.run(() => listDocuments(this.cached, brainId, options.prefix));
  }

  documentPage(
    brainId: string,
    options: { prefix: string; after?: string; limit: number },
  ): Promise<DocumentRecord[]> {
    return this.run(() => documentPage(this.cached, brainId, options));
  }

  createSession(session: SessionRecord): Promise<SessionRecord> {
    return this.run(() => this.write(() => sessions.createSession(this.cached, session)));
  }

  getSession(id: string): Promise<SessionRecord | null> {
    return this.run(() => sessions.getSession(this.cached, id));
  }

  updateSession(
    id: string,
    patch: { ended_at?: string; metadata?: Record<string, unknown> },
  ): Promise<SessionRecord> {
    return this.run(() => this.write(() => sessions.updateSession(this.cached, id, patch)));
  }

  appendMessages(
    sessionId: string,
    messages: Omit<StoredMessage, "seq" | "session_id">[],
  ): Promise<StoredMessage[]> {
    return this.run(() =>
      this.write(() => sessions.appendMessages(this.cached, sessionId, messages))
    );
  }

  listMessages(
    sessionId: string,
    options?: { afterSeq?: number; last?: number },
  ): Promise<StoredMessage[]> {
    return this.run(() => sessions.listMessages(this.cached, sessionId, options));
  }

  messageCount(sessionId: string): Promise<number> {
    return this.run(() => sessions.messageCount(this.cached, sessionId));
  }

  acquireLock(name: string, holder: string, ttlMs: number): Promise<LockHolder | null> {
    return this.run(() => this.write(() => locks.acquireLock(this.cached, name, holder, ttlMs)));
  }

  renewLock(name: string, holder: string, ttlMs: number): Promise<void> {
    return this.run(() => this.write(() => locks.renewLock(this.cached, name, holder, ttlMs)));
  }

  releaseLock(name: string, holder: string): Promise<void> {
    return this.run(() => this.write(() => locks.releaseLock(this.cached, name, holder)));
  }

  chunksOf(documentId: string): Promise<{ id: string; text: string }[]> {
    return this.run(() => vectors.chunksOf(this.cached, documentId));
  }

  chunksWithoutVectors(
    brainId: string,
    options: { model: string; limit: number },
  ): Promise<{ id: string; text: string }[]> {
    return this.run(() => vectors.chunksWithoutVectors(this.cached, brainId, options));
  }

  putVectors(model: string, rows: { chunk_id: string; vector: Float32Array }[]): Promise<void> {
    return this.run(() => this.write(() => vectors.putVectors(this.cached, model, rows)));
  }

  vectorSearch(
    query: { brainId: string; vector: Float32Array; model: string; topK: number; scope: Scope },
  ): Promise<SearchHit[]> {
    return this.run(() => vectors.vectorSearch(this.cached, query));
  }

  insertToken(token: StoredToken): Promise<void> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        tokens.insertToken(this.cached, token);
      })
    );
  }

  listTokens(): Promise<TokenRecord[]> {
    return this.run(() => tokens.listTokens(this.cached));
  }

  findTokenByHash(hash: string): Promise<StoredToken | null> {
    return this.run(() =>
      this.#throughCache(this.#tokens, hash, () => tokens.findTokenByHash(this.cached, hash))
    );
  }

  revokeToken(id: string, at: string): Promise<{ token: TokenRecord; revokedNow: boolean } | null> {
    return this.run(() =>
      this.write(() => {
        this.#stamp.bump();
        return tokens.revokeToken(this.cached, id, at);
      })
    );
  }

  touchToken(id: string, at: string, options: { olderThan: string }): Promise<void> {
    return this.run(() =>
      this.write(() => {
        // The cached row still has the old last_used_at; without it the next verify would touch again.
        this.#tokens.clear();
        tokens.touchToken(this.cached, id, { at, olderThan: options.olderThan });
      })
    );
  }

  audit(e: AuditEntry): Promise<void> {
    this.#audit.add(e);
    return Promise.resolve();
  }

  close(): void {
    if (!this.db.isOpen) return;
    try {
      this.#audit.flushNow();
    } finally {
      this.db.close();
    }
  }

  #findRow(brainId: string, ref: DocumentRef): DocumentRecord | null {
    const [col, val]: [string, SQLInputValue] = ref.id !== undefined
      ? ["id", ref.id]
      : ["path", ref.path];
    const row = this.prepare(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE brain_id = ? AND ${col} = ?`,
    ).get(
      brainId,
      val,
    ) as DocumentRow | undefined;
    return row ? toDocument(row) : null;
  }
}

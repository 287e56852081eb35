/**
 * @module Writing document versions: the no-op rule (identical content, title, path and metadata
 * make no version), commit ids, chunking and links, optimistic retries against concurrent writers,
 * and what follows a commit — the change announcement and, when vectors are on, embedding. Both
 * run after the unit of work commits, so a rolled-back write announces nothing and no model call
 * ever holds the write lock.
 */
import type { ChangeFeed } from "./change_feed.ts";
import { embedDocument } from "./search/embedding.ts";
import { EngramError } from "./errors.ts";
import { sha256Hex } from "./hash.ts";
import { newId } from "./ids.ts";
import type { Logger } from "./logger.ts";
import { chunkMarkdown } from "./markdown/chunker.ts";
import { parseLinks } from "./markdown/links.ts";
import type { DocumentStore } from "./ports/document_store.ts";
import type { Embedder } from "./ports/language_model.ts";
import type { UnitOfWork } from "./ports/unit_of_work.ts";
import type { VectorIndex } from "./ports/vector_index.ts";
import type { CompiledFrom, DocumentRecord, DocumentSource, Metadata } from "./types.ts";

/** How often a write is retried when another writer changed the same document first. */
const WRITE_ATTEMPTS = 20;
/** Upper bound of the random pause before a retry, in ms. */
const MAX_BACKOFF_MS = 100;

/** The next state of a document. */
export interface NextVersion {
  content: string;
  title: string;
  path: string;
  metadata: Metadata;
  source: DocumentSource;
  contentType?: string;
  id?: string;
  createdAt?: string;
  updatedAt?: string;
  /** Set by the compile path alone: the write records it as the document's provenance. */
  provenance?: CompiledFrom;
}

/** What a write did: the document, its chunk count (null when nothing was written), vectors made. */
export interface Written {
  doc: DocumentRecord;
  chunkCount: number | null;
  /** Chunks embedded after the commit; 0 inside an outer unit of work, whose commit embeds them. */
  embedded: number;
}

/** The ports and settings a writer needs. */
export interface DocumentWriterDeps {
  documents: DocumentStore;
  vectors: VectorIndex;
  units: UnitOfWork;
  changes: ChangeFeed;
  embedder?: Embedder;
  logger: Logger;
  now: () => Date;
}

/** Writes versions and forgets documents, announcing each change once committed. */
export class DocumentWriter {
  readonly #d: DocumentWriterDeps;

  constructor(deps: DocumentWriterDeps) {
    this.#d = deps;
  }

  /** Writes `next` over `existing` (null: a new document), unless nothing would change. */
  async write(
    brainId: string,
    existing: DocumentRecord | null,
    next: NextVersion,
  ): Promise<Written> {
    const checksum = sha256Hex(next.content);
    // A compile always writes: its provenance (a new fetch) changed even when the text did not.
    if (
      !next.provenance && existing && existing.deleted_at === null &&
      existing.checksum_sha256 === checksum &&
      existing.title === next.title && existing.path === next.path &&
      JSON.stringify(existing.metadata) === JSON.stringify(next.metadata)
    ) {
      return { doc: existing, chunkCount: null, embedded: 0 };
    }
    const now = this.#d.now().toISOString();
    const id = existing?.id ?? next.id ?? newId("doc");
    const chunks = chunkMarkdown(next.content);
    const commit = sha256Hex(
      [existing?.commit_sha ?? "", next.path, next.title, JSON.stringify(next.metadata), checksum]
        .join("\n"),
    ).slice(0, 40);
    let embedded = 0;
    const doc = await this.#d.units.withTransaction(async (tx) => {
      const doc = await this.#d.documents.writeVersion({
        document: {
          id,
          brain_id: brainId,
          title: next.title,
          path: next.path,
          source: next.source,
          content_type: next.contentType ?? existing?.content_type ?? "text/markdown",
          byte_size: new TextEncoder().encode(next.content).byteLength,
          checksum_sha256: checksum,
          metadata: next.metadata,
          commit_sha: commit,
          created_at: existing?.created_at ?? next.createdAt ?? now,
          updated_at: existing ? now : next.updatedAt ?? now,
          deleted_at: null,
        },
        content: next.content,
        chunks,
        links: parseLinks(next.content, next.path),
        expectedVersion: existing?.version,
        provenance: next.provenance,
      });
      tx.afterCommit(() =>
        this.#d.changes.emit({
          brainId,
          documentId: doc.id,
          path: doc.path,
          previousPath: existing && existing.path !== doc.path ? existing.path : undefined,
          version: doc.version,
          // As the timeline words it, so the poll recognises this change.
          action: doc.version === 1 ? "created" : "updated",
        })
      );
      tx.afterCommit(async () => {
        embedded = await embedDocument(this.#d.vectors, doc.id, {
          embedder: this.#d.embedder,
          logger: this.#d.logger,
        });
      });
      return doc;
    });
    return { doc, chunkCount: chunks.length, embedded };
  }

  /** Soft-deletes a live document and announces it once committed. */
  forget(brainId: string, documentId: string): Promise<DocumentRecord> {
    return this.#d.units.withTransaction(async (tx) => {
      const gone = await this.#d.documents.markDeleted(
        brainId,
        documentId,
        this.#d.now().toISOString(),
      );
      tx.afterCommit(() =>
        this.#d.changes.emit({
          brainId,
          documentId: gone.id,
          path: gone.path,
          version: gone.version,
          action: "deleted",
        })
      );
      return gone;
    });
  }

  /**
   * Re-runs a read-modify-write when another writer got there first. SQLite's units of work hold
   * the write lock from their first statement, so this matters for writes outside one, and for
   * backends whose transactions read committed data only.
   */
  async retrying<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1;; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const stale = err instanceof EngramError && err.code === "conflict" &&
          err.cause === "stale-version";
        if (!stale || attempt >= WRITE_ATTEMPTS) throw err;
        // A random, growing pause, so writers that keep colliding fall out of lock-step.
        const pause = Math.random() * Math.min(2 ** attempt, MAX_BACKOFF_MS);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}

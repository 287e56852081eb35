/** @module The memory service: every memory operation, independent of transport and storage. */
import {
  accessibleBrains,
  type BrainDeletionPlan,
  type BrainDeletionResult,
  createBrain,
  deleteBrain,
  renameBrain,
  resolveBrain,
} from "./brains.ts";
import { notFound, refOf } from "./document_refs.ts";
import { mergeMetadata } from "./metadata_merge.ts";
import type {
  IngestInput,
  MemoryServiceOptions,
  SearchResult,
  WriteOptions,
} from "./service_types.ts";
import { EngramError } from "./errors.ts";
import { sha256Hex } from "./hash.ts";
import { LIMITS } from "./limits.ts";
import { newId } from "./ids.ts";
import { chunkMarkdown } from "./markdown/chunker.ts";
import { parseLinks } from "./markdown/links.ts";
import { derivePath, deriveTitle, normalizePath } from "./markdown/naming.ts";
import type {
  CreateBrainArgs,
  GetArgs,
  ListArgs,
  RefArgs,
  RememberArgs,
  RenameBrainArgs,
  SearchArgs,
  TimelineArgs,
  UpdateArgs,
} from "./schemas.ts";
import type { MemoryStore } from "./store.ts";
import { backfillVectors, embedDocument } from "./embedding.ts";
import { ChangeFeed } from "./change_feed.ts";
import { hybridSearch } from "./hybrid_search.ts";
import { type Logger, silentLogger } from "./logger.ts";
import type { Embedder } from "./ports/language_model.ts";
import type {
  Backlink,
  Brain,
  BrainStats,
  CallerContext,
  DocumentRecord,
  DocumentSource,
  DocumentWithContent,
  IngestResponse,
  Metadata,
  SearchHit,
  SearchQuery,
  TagCount,
  TimelineEntry,
} from "./types.ts";

/** How often a write is retried when another writer changed the same document first. */
const WRITE_ATTEMPTS = 20;
/** Upper bound of the random pause before a retry, in ms. */
const MAX_BACKOFF_MS = 100;

export type {
  IngestInput,
  MemoryServiceOptions,
  SearchResult,
  WriteOptions,
} from "./service_types.ts";

/** Memory operations on top of a MemoryStore. */
export class MemoryService {
  readonly store: MemoryStore;
  readonly #defaultBrain?: string;
  /** Set when an embedding provider is configured: chunks get vectors and search fuses them. */
  readonly embedder?: Embedder;
  readonly #logger: Logger;
  /** Every document write and forget of this process (and, while watched, of other processes). */
  readonly changes: ChangeFeed;

  constructor(
    store: MemoryStore,
    options: MemoryServiceOptions & { changePollMs?: number } = {},
  ) {
    this.store = store;
    this.#defaultBrain = options.defaultBrain;
    this.embedder = options.embedder;
    this.#logger = options.logger ?? silentLogger;
    this.changes = new ChangeFeed(store, { pollMs: options.changePollMs, logger: this.#logger });
  }

  /** The brain a call runs against. */
  brain(caller: CallerContext, brain?: string): Promise<Brain> {
    return resolveBrain(this.store, caller, { brain, defaultBrain: this.#defaultBrain });
  }

  /** Brains the caller may access. */
  listBrains(caller: CallerContext): Promise<Brain[]> {
    return accessibleBrains(this.store, caller);
  }

  /** Creates a brain. */
  createBrain(args: CreateBrainArgs): Promise<Brain> {
    return createBrain(this.store, args);
  }

  /** Renames a brain (name, slug or both); the configured default brain keeps its slug. */
  renameBrain(caller: CallerContext, args: RenameBrainArgs): Promise<Brain> {
    return renameBrain(this.store, caller, { ...args, defaultBrain: this.#defaultBrain });
  }

  /**
   * Deletes a brain and everything in it, permanently, once `options.confirm` agrees (null when it
   * declines); the configured default brain is refused.
   */
  deleteBrain(
    caller: CallerContext,
    brain: string,
    options: { confirm?: (plan: BrainDeletionPlan) => Promise<boolean> } = {},
  ): Promise<BrainDeletionResult | null> {
    return deleteBrain(this.store, caller, {
      brain,
      defaultBrain: this.#defaultBrain,
      confirm: options.confirm,
    });
  }

  /** Stores a document; the same path again is a new version, identical content is no new version. */
  async remember(
    caller: CallerContext,
    args: RememberArgs,
    options: WriteOptions = {},
  ): Promise<DocumentRecord> {
    return (await this.#remember(caller, args, options)).doc;
  }

  /**
   * Stores extracted text from a file or URL. An unchanged source (same `sourceHash` at the same
   * path) is reused: nothing is written and `reused` is true.
   */
  async ingest(caller: CallerContext, input: IngestInput): Promise<IngestResponse> {
    const started = performance.now();
    const reused = await this.reused(caller, input);
    if (reused) return reused;
    const path = normalizePath(input.path);
    const elapsed = () => Math.round(performance.now() - started);
    const { doc, chunkCount, embedded } = await this.#remember(caller, {
      content: input.content,
      title: input.title,
      brain: input.brain,
      path,
      tags: input.tags,
      metadata: { ...input.metadata, source_hash: input.sourceHash },
    }, { source: "ingest", contentType: input.contentType, id: input.id });
    return {
      status: "completed",
      document_id: doc.id,
      path,
      hash: input.sourceHash,
      chunk_count: chunkCount ?? await this.store.chunkCount(doc.id),
      embedded_count: embedded,
      duration_ms: elapsed(),
      reused: false,
    };
  }

  /**
   * The answer for a source already stored unchanged at `path` (same `sourceHash`), or null. Lets
   * a caller skip reading and extracting a file that has not changed.
   */
  async reused(
    caller: CallerContext,
    input: { brain?: string; path: string; sourceHash: string },
  ): Promise<IngestResponse | null> {
    const started = performance.now();
    const brain = await this.brain(caller, input.brain);
    const path = normalizePath(input.path);
    const existing = await this.store.findDocument(brain.id, { path });
    if (
      !existing || existing.deleted_at !== null ||
      existing.metadata.source_hash !== input.sourceHash
    ) {
      return null;
    }
    return {
      status: "completed",
      document_id: existing.id,
      path,
      hash: input.sourceHash,
      chunk_count: await this.store.chunkCount(existing.id),
      embedded_count: 0,
      duration_ms: Math.round(performance.now() - started),
      reused: true,
    };
  }

  async #remember(
    caller: CallerContext,
    args: RememberArgs,
    options: WriteOptions,
  ): Promise<{ doc: DocumentRecord; chunkCount: number | null; embedded: number }> {
    // The one ceiling every way in shares, so whatever was stored can be exported and imported back.
    if (args.content.length > LIMITS.documentChars) {
      throw new EngramError(
        "file_too_large",
        `content is ${args.content.length} characters; a document holds at most ${LIMITS.documentChars} — split it`,
      );
    }
    const brain = await this.brain(caller, args.brain);
    const title = args.title ?? deriveTitle(args.content);
    const path = normalizePath(args.path ?? derivePath(title));
    const id = options.id && !(await this.store.documentIdTaken(options.id))
      ? options.id
      : undefined;
    const written = await this.#retrying(async () => {
      const existing = await this.store.findDocument(brain.id, { path });
      const metadata = mergeMetadata(existing?.metadata ?? {}, args.metadata, args.tags);
      return await this.#write(brain.id, existing, {
        content: args.content,
        title,
        path,
        metadata,
        source: options.source ?? existing?.source ?? "ingest",
        contentType: options.contentType,
        id,
        createdAt: options.createdAt,
        updatedAt: options.updatedAt,
      });
    });
    const embedded = written.chunkCount === null ? 0 : await this.#embed(written.doc.id);
    return { ...written, embedded };
  }

  /** Vectors for a freshly written document, when vectors are on. */
  #embed(documentId: string): Promise<number> {
    return embedDocument(this.store, documentId, { embedder: this.embedder, logger: this.#logger });
  }

  /** A live document with content, by id or path, optionally at a past version. */
  async get(caller: CallerContext, args: GetArgs): Promise<DocumentWithContent> {
    const brain = await this.brain(caller, args.brain);
    const doc = await this.store.readDocument(brain.id, refOf(args), args.version);
    if (doc && doc.deleted_at === null && doc.version === (args.version ?? doc.version)) return doc;
    if (args.version !== undefined) {
      const current = await this.store.findDocument(brain.id, refOf(args));
      if (current && current.deleted_at === null) {
        throw new EngramError(
          "not_found",
          `document ${current.path} has no version ${args.version} in brain "${brain.slug}"; its versions are 1..${current.version}`,
        );
      }
    }
    throw notFound(args, brain);
  }

  /**
   * One page of live documents under a path prefix, in path order; `next_after`, when set, is
   * the `after` of the next page.
   */
  async list(
    caller: CallerContext,
    args: ListArgs,
  ): Promise<{ brain_id: string; items: DocumentRecord[]; next_after?: string }> {
    const brain = await this.brain(caller, args.brain);
    const items = await this.store.documentPage(brain.id, {
      prefix: args.prefix,
      after: args.after,
      limit: args.limit + 1,
    });
    const more = items.length > args.limit;
    if (more) items.length = args.limit;
    return { brain_id: brain.id, items, ...(more ? { next_after: items.at(-1)!.path } : {}) };
  }

  /** Changes content, title, tags, metadata or path; unchanged input creates no version. */
  async update(caller: CallerContext, args: UpdateArgs): Promise<DocumentRecord> {
    if (
      args.content === undefined && args.title === undefined && args.tags === undefined &&
      args.metadata === undefined && args.new_path === undefined
    ) {
      throw new EngramError(
        "invalid_argument",
        "nothing to update; give content, title, tags, metadata or new_path",
      );
    }
    const brain = await this.brain(caller, args.brain);
    return await this.#retrying(async () => {
      const read = await this.store.readDocument(brain.id, refOf(args));
      if (!read || read.deleted_at !== null) throw notFound(args, brain);
      // A no-op update returns `current` as is: a DocumentRecord, without the content.
      const { content: currentContent, ...current } = read;
      const path = args.new_path !== undefined ? normalizePath(args.new_path) : current.path;
      if (path !== current.path) {
        const taken = await this.store.findDocument(brain.id, { path });
        if (taken) {
          throw new EngramError(
            "conflict",
            `path ${path} is already used by document ${taken.id}${
              taken.deleted_at ? " (forgotten)" : ""
            }; choose another path`,
          );
        }
      }
      return await this.#write(brain.id, current, {
        content: args.content ?? currentContent,
        title: args.title ?? current.title,
        path,
        metadata: mergeMetadata(current.metadata, args.metadata, args.tags),
        source: current.source,
      });
    }).then(async ({ doc, chunkCount }) => {
      if (chunkCount !== null) await this.#embed(doc.id);
      return doc;
    });
  }

  /** Soft-deletes a document: it leaves search, its versions stay. */
  async forget(caller: CallerContext, args: RefArgs): Promise<DocumentRecord> {
    const brain = await this.brain(caller, args.brain);
    const doc = await this.store.findDocument(brain.id, refOf(args));
    if (!doc || doc.deleted_at !== null) throw notFound(args, brain);
    const gone = await this.store.markDeleted(brain.id, doc.id, new Date().toISOString());
    this.changes.emit({
      brainId: brain.id,
      documentId: gone.id,
      path: gone.path,
      version: gone.version,
      action: "deleted",
    });
    return gone;
  }

  /** Ranked full-text search. */
  async search(caller: CallerContext, args: SearchArgs): Promise<SearchResult> {
    const brain = await this.brain(caller, args.brain);
    const started = performance.now();
    const hits = await this.searchHits({
      brainId: brain.id,
      text: args.query,
      topK: args.top_k,
      scope: args.scope,
      sort: args.sort,
    });
    return {
      query: args.query,
      brain_id: brain.id,
      hits,
      took_ms: Math.round(performance.now() - started),
    };
  }

  /** Ranked hits in a resolved brain: full text, fused with vectors when an embedder is configured. */
  searchHits(query: SearchQuery): Promise<SearchHit[]> {
    return hybridSearch(this.store, query, { embedder: this.embedder, logger: this.#logger });
  }

  /** Recent changes in a brain. */
  async timeline(
    caller: CallerContext,
    args: TimelineArgs,
  ): Promise<{ brain_id: string; items: TimelineEntry[] }> {
    const brain = await this.brain(caller, args.brain);
    const since = args.since ? new Date(args.since).toISOString() : undefined;
    return {
      brain_id: brain.id,
      items: await this.store.timeline(brain.id, { limit: args.limit, since }),
    };
  }

  /** Documents linking to the given one. */
  async backlinks(
    caller: CallerContext,
    args: RefArgs,
  ): Promise<{ document: DocumentRecord; items: Backlink[] }> {
    const brain = await this.brain(caller, args.brain);
    const doc = await this.store.findDocument(brain.id, refOf(args));
    if (!doc || doc.deleted_at !== null) throw notFound(args, brain);
    return { document: doc, items: await this.store.backlinks(brain.id, doc) };
  }

  /** Tags in use, most used first. */
  async tags(
    caller: CallerContext,
    args: { brain?: string },
  ): Promise<{ brain_id: string; items: TagCount[] }> {
    const brain = await this.brain(caller, args.brain);
    return { brain_id: brain.id, items: await this.store.tags(brain.id) };
  }

  /** Brain statistics. */
  async stats(
    caller: CallerContext,
    args: { brain?: string },
  ): Promise<BrainStats & { brain_slug: string }> {
    const brain = await this.brain(caller, args.brain);
    return { ...(await this.store.stats(brain.id)), brain_slug: brain.slug };
  }

  /** Re-chunks and re-indexes every live document (after a chunker change or a damaged index). */
  async reindex(
    caller: CallerContext,
    args: { brain?: string },
  ): Promise<
    { brain_id: string; documents: number; chunks: number; embedded: number; took_ms: number }
  > {
    const brain = await this.brain(caller, args.brain);
    const started = performance.now();
    let documents = 0;
    let chunks = 0;
    for await (const doc of this.store.liveDocuments(brain.id)) {
      const c = chunkMarkdown(doc.content);
      await this.store.replaceIndex(doc.id, c, parseLinks(doc.content, doc.path));
      documents++;
      chunks += c.length;
    }
    // Re-chunking dropped the old vectors; embed everything missing (also after an outage).
    const embedded = this.embedder ? await backfillVectors(this.store, brain.id, this.embedder) : 0;
    return {
      brain_id: brain.id,
      documents,
      chunks,
      embedded,
      took_ms: Math.round(performance.now() - started),
    };
  }

  async #write(
    brainId: string,
    existing: DocumentRecord | null,
    next: {
      content: string;
      title: string;
      path: string;
      metadata: Metadata;
      source: DocumentSource;
      contentType?: string;
      id?: string;
      createdAt?: string;
      updatedAt?: string;
    },
  ): Promise<{ doc: DocumentRecord; chunkCount: number | null }> {
    const checksum = sha256Hex(next.content);
    if (
      existing && existing.deleted_at === null && existing.checksum_sha256 === checksum &&
      existing.title === next.title && existing.path === next.path &&
      JSON.stringify(existing.metadata) === JSON.stringify(next.metadata)
    ) {
      return { doc: existing, chunkCount: null };
    }
    const now = new Date().toISOString();
    const id = existing?.id ?? next.id ?? newId("doc");
    const chunks = chunkMarkdown(next.content);
    const commit = sha256Hex(
      [existing?.commit_sha ?? "", next.path, next.title, JSON.stringify(next.metadata), checksum]
        .join("\n"),
    ).slice(0, 40);
    const doc = await this.store.writeVersion({
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
    });
    this.changes.emit({
      brainId,
      documentId: doc.id,
      path: doc.path,
      previousPath: existing && existing.path !== doc.path ? existing.path : undefined,
      version: doc.version,
      // As the timeline words it, so the poll recognises this change.
      action: doc.version === 1 ? "created" : "updated",
    });
    return { doc, chunkCount: chunks.length };
  }

  /** Re-runs a read-modify-write when another writer got there first. */
  async #retrying<T>(fn: () => Promise<T>): Promise<T> {
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

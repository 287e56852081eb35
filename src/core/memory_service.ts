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
import { DocumentWriter, type NextVersion, type Written } from "./document_writer.ts";
import { mergeMetadata } from "./metadata_merge.ts";
import { provenanceOf, withOrigins } from "./provenance.ts";
import type {
  IngestInput,
  MemoryServiceOptions,
  SearchResult,
  WriteOptions,
} from "./service_types.ts";
import { EngramError } from "./errors.ts";
import { LIMITS } from "./limits.ts";
import { frontMatterWarnings, withWarnings } from "./markdown/front_matter_warnings.ts";
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
import { reindexBrain, type ReindexReport } from "./reindex.ts";
import { ChangeFeed } from "./change_feed.ts";
import { hybridSearch } from "./search/hybrid_search.ts";
import { type Logger, silentLogger } from "./logger.ts";
import type { Embedder } from "./ports/language_model.ts";
import type { BrainStore } from "./ports/brain_store.ts";
import type { DocumentRef, DocumentStore } from "./ports/document_store.ts";
import type { SearchIndex } from "./ports/search_index.ts";
import type { UnitOfWork } from "./ports/unit_of_work.ts";
import type { VectorIndex } from "./ports/vector_index.ts";
import type {
  Backlink,
  Brain,
  BrainStats,
  CallerContext,
  CompiledFrom,
  DocumentRecord,
  DocumentWithContent,
  DocumentWithProvenance,
  GroupedSearchQuery,
  IngestResponse,
  Provenance,
  SourcedHit,
  TagCount,
  TimelineEntry,
  WrittenRecord,
} from "./types.ts";

export type {
  IngestInput,
  MemoryServiceOptions,
  SearchResult,
  WriteOptions,
} from "./service_types.ts";

/** The storage ports the memory service works on. */
export interface MemoryPorts {
  brains: BrainStore;
  documents: DocumentStore;
  search: SearchIndex;
  vectors: VectorIndex;
  units: UnitOfWork;
}

/** Memory operations on the storage ports; the ports stay private to it. */
export class MemoryService {
  readonly #ports: MemoryPorts;
  readonly #defaultBrain?: string;
  /** Set when an embedding provider is configured: chunks get vectors and search fuses them. */
  readonly embedder?: Embedder;
  readonly #logger: Logger;
  readonly #now: () => Date;
  readonly #writer: DocumentWriter;
  /** Every document write and forget of this process (and, while watched, of other processes). */
  readonly changes: ChangeFeed;

  constructor(
    ports: MemoryPorts,
    options: MemoryServiceOptions & { changePollMs?: number } = {},
  ) {
    this.#ports = ports;
    this.#defaultBrain = options.defaultBrain;
    this.embedder = options.embedder;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? (() => new Date());
    this.changes = new ChangeFeed(ports.documents, {
      pollMs: options.changePollMs,
      logger: this.#logger,
    });
    this.#writer = new DocumentWriter({
      ...ports,
      changes: this.changes,
      embedder: this.embedder,
      logger: this.#logger,
      now: this.#now,
    });
  }

  /**
   * Runs `fn` as one unit of work: every write it makes, through this service or the other ports
   * of the same storage (sessions, jobs), commits together or not at all. Keep model and network
   * calls out of it: other callers wait until it ends.
   */
  atomically<T>(fn: () => Promise<T>): Promise<T> {
    return this.#ports.units.withTransaction(() => fn());
  }

  /** The brain a call runs against. */
  brain(caller: CallerContext, brain?: string): Promise<Brain> {
    return resolveBrain(this.#ports.brains, caller, { brain, defaultBrain: this.#defaultBrain });
  }

  /** Brains the caller may access. */
  listBrains(caller: CallerContext): Promise<Brain[]> {
    return accessibleBrains(this.#ports.brains, caller);
  }

  /** Creates a brain. */
  createBrain(args: CreateBrainArgs): Promise<Brain> {
    return createBrain(this.#ports.brains, args);
  }

  /** Renames a brain (name, slug or both); the configured default brain keeps its slug. */
  renameBrain(caller: CallerContext, args: RenameBrainArgs): Promise<Brain> {
    return renameBrain(this.#ports.brains, caller, { ...args, defaultBrain: this.#defaultBrain });
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
    return deleteBrain(this.#ports, caller, {
      brain,
      defaultBrain: this.#defaultBrain,
      confirm: options.confirm,
      at: this.#now().toISOString(),
    });
  }

  /**
   * Stores a document; the same path again is a new version, identical content is no new version.
   * The record carries `options.warnings`, else those of the content's front matter block.
   */
  async remember(
    caller: CallerContext,
    args: RememberArgs,
    options: WriteOptions = {},
  ): Promise<WrittenRecord> {
    const { doc } = await this.#remember(caller, args, { write: options });
    return withWarnings(doc, options.warnings ?? frontMatterWarnings(args.content));
  }

  /**
   * Stores a document compiled from an upstream resource (source `compile`) with its provenance:
   * the one way provenance is written (docs/tools.md#result-records). Always a new version.
   */
  async rememberCompiled(
    caller: CallerContext,
    args: RememberArgs,
    o: { provenance: CompiledFrom; contentType?: string },
  ): Promise<DocumentRecord & { provenance: Provenance }> {
    const { doc } = await this.#remember(caller, args, {
      write: { source: "compile", contentType: o.contentType },
      provenance: o.provenance,
    });
    return { ...doc, provenance: { ...o.provenance, version: doc.version, edited: false } };
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
    }, { write: { source: "ingest", contentType: input.contentType, id: input.id } });
    return {
      status: "completed",
      document_id: doc.id,
      path,
      hash: input.sourceHash,
      chunk_count: chunkCount ?? await this.#ports.search.chunkCount(doc.id),
      embedded_count: embedded,
      duration_ms: elapsed(),
      reused: false,
      ...(input.warnings?.length ? { warnings: input.warnings } : {}),
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
    const existing = await this.findLive(brain, { path });
    if (!existing || existing.metadata.source_hash !== input.sourceHash) return null;
    return {
      status: "completed",
      document_id: existing.id,
      path,
      hash: input.sourceHash,
      chunk_count: await this.#ports.search.chunkCount(existing.id),
      embedded_count: 0,
      duration_ms: Math.round(performance.now() - started),
      reused: true,
    };
  }

  async #remember(
    caller: CallerContext,
    args: RememberArgs,
    o: { write: WriteOptions; provenance?: CompiledFrom },
  ): Promise<Written> {
    const options = o.write;
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
    const id = options.id && !(await this.#ports.documents.documentIdTaken(options.id))
      ? options.id
      : undefined;
    return await this.#writer.retrying(async () => {
      const existing = await this.#ports.documents.findDocument(brain.id, { path });
      const metadata = mergeMetadata(existing?.metadata ?? {}, args.metadata, args.tags);
      return await this.#writer.write(
        brain.id,
        existing,
        {
          content: args.content,
          title,
          path,
          metadata,
          source: options.source ?? existing?.source ?? "ingest",
          contentType: options.contentType,
          id,
          createdAt: options.createdAt,
          updatedAt: options.updatedAt,
          provenance: o.provenance,
        } satisfies NextVersion,
      );
    });
  }

  /**
   * A live document with content, by id or path, optionally at a past version, and its
   * provenance when compiled.
   */
  async get(caller: CallerContext, args: GetArgs): Promise<DocumentWithProvenance> {
    const brain = await this.brain(caller, args.brain);
    const doc = await this.#ports.documents.readDocument(brain.id, refOf(args), args.version);
    if (doc && doc.deleted_at === null && doc.version === (args.version ?? doc.version)) {
      const origin = (await this.#ports.documents.origins(brain.id, [doc.id])).get(doc.id);
      return { ...doc, provenance: provenanceOf(doc, origin?.provenance) };
    }
    if (args.version !== undefined) {
      const current = await this.findLive(brain, refOf(args));
      if (current) {
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
    const items = await this.#ports.documents.documentPage(brain.id, {
      prefix: args.prefix,
      after: args.after,
      limit: args.limit + 1,
    });
    const more = items.length > args.limit;
    if (more) items.length = args.limit;
    return { brain_id: brain.id, items, ...(more ? { next_after: items.at(-1)!.path } : {}) };
  }

  /**
   * Changes content, title, tags, metadata or path; unchanged input creates no version. New
   * content's front matter block is checked, and what it found comes back as `warnings`.
   */
  async update(caller: CallerContext, args: UpdateArgs): Promise<WrittenRecord> {
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
    const written = await this.#writer.retrying(async () => {
      const read = await this.readLive(brain, refOf(args));
      if (!read) throw notFound(args, brain);
      // A no-op update returns `current` as is: a DocumentRecord, without the content.
      const { content: currentContent, ...current } = read;
      const path = args.new_path !== undefined ? normalizePath(args.new_path) : current.path;
      if (path !== current.path) {
        const taken = await this.pathOwner(brain, path);
        if (taken) {
          throw new EngramError(
            "conflict",
            `path ${path} is already used by document ${taken.id}${
              taken.deleted_at ? " (forgotten)" : ""
            }; choose another path`,
          );
        }
      }
      return await this.#writer.write(brain.id, current, {
        content: args.content ?? currentContent,
        title: args.title ?? current.title,
        path,
        metadata: mergeMetadata(current.metadata, args.metadata, args.tags),
        source: current.source,
      });
    });
    return withWarnings(
      written.doc,
      args.content === undefined ? [] : frontMatterWarnings(args.content),
    );
  }

  /** Soft-deletes a document: it leaves search, its versions stay. */
  async forget(caller: CallerContext, args: RefArgs): Promise<DocumentRecord> {
    const brain = await this.brain(caller, args.brain);
    const doc = await this.findLive(brain, refOf(args));
    if (!doc) throw notFound(args, brain);
    return await this.#writer.forget(brain.id, doc.id);
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
      group: args.group,
    });
    return {
      query: args.query,
      brain_id: brain.id,
      hits,
      took_ms: Math.round(performance.now() - started),
    };
  }

  /**
   * Ranked hits in a resolved brain: full text, fused with vectors when an embedder is configured;
   * one per document unless `group` is `chunk`; each with its document's source and provenance.
   */
  async searchHits(query: GroupedSearchQuery): Promise<SourcedHit[]> {
    const hits = await hybridSearch(this.#ports, query, {
      embedder: this.embedder,
      logger: this.#logger,
    });
    if (hits.length === 0) return [];
    const ids = hits.map((h) => h.document_id);
    return withOrigins(hits, await this.#ports.documents.origins(query.brainId, ids));
  }

  /** The provenance of each compiled one of `documents` (by id), as of the record given. */
  async provenanceOf(
    brain: Brain,
    documents: readonly DocumentRecord[],
  ): Promise<Map<string, Provenance>> {
    const origins = await this.#ports.documents.origins(brain.id, documents.map((d) => d.id));
    const out = new Map<string, Provenance>();
    for (const d of documents) {
      const p = provenanceOf(d, origins.get(d.id)?.provenance);
      if (p) out.set(d.id, p);
    }
    return out;
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
      items: await this.#ports.documents.timeline(brain.id, { limit: args.limit, since }),
    };
  }

  /** Documents linking to the given one. */
  async backlinks(
    caller: CallerContext,
    args: RefArgs,
  ): Promise<{ document: DocumentRecord; items: Backlink[] }> {
    const brain = await this.brain(caller, args.brain);
    const doc = await this.findLive(brain, refOf(args));
    if (!doc) throw notFound(args, brain);
    return { document: doc, items: await this.#ports.search.backlinks(brain.id, doc) };
  }

  /** Tags in use, most used first. */
  async tags(
    caller: CallerContext,
    args: { brain?: string },
  ): Promise<{ brain_id: string; items: TagCount[] }> {
    const brain = await this.brain(caller, args.brain);
    return { brain_id: brain.id, items: await this.#ports.search.tags(brain.id) };
  }

  /** Brain statistics. */
  async stats(
    caller: CallerContext,
    args: { brain?: string },
  ): Promise<BrainStats & { brain_slug: string }> {
    const brain = await this.brain(caller, args.brain);
    return { ...(await this.#ports.documents.stats(brain.id)), brain_slug: brain.slug };
  }

  /** Re-chunks and re-indexes every live document (after a chunker change or a damaged index). */
  async reindex(caller: CallerContext, args: { brain?: string }): Promise<ReindexReport> {
    const brain = await this.brain(caller, args.brain);
    return await reindexBrain(this.#ports, brain, { embedder: this.embedder });
  }

  /** A live document of an already resolved brain, or null when missing or forgotten. */
  async findLive(brain: Brain, ref: DocumentRef): Promise<DocumentRecord | null> {
    const doc = await this.#ports.documents.findDocument(brain.id, ref);
    return doc && doc.deleted_at === null ? doc : null;
  }

  /** A live document with its current content, or null when missing or forgotten. */
  async readLive(brain: Brain, ref: DocumentRef): Promise<DocumentWithContent | null> {
    const doc = await this.#ports.documents.readDocument(brain.id, ref);
    return doc && doc.deleted_at === null ? doc : null;
  }

  /**
   * A forgotten document with its last version's content (what restoring it writes again), or
   * null when there is none or it is live.
   */
  async readForgotten(brain: Brain, ref: DocumentRef): Promise<DocumentWithContent | null> {
    const doc = await this.#ports.documents.readDocument(brain.id, ref);
    return doc && doc.deleted_at !== null ? doc : null;
  }

  /**
   * The document holding `path`, live or forgotten (a forgotten one still owns its path: writing
   * there brings it back), or null.
   */
  pathOwner(brain: Brain, path: string): Promise<DocumentRecord | null> {
    return this.#ports.documents.findDocument(brain.id, { path: normalizePath(path) });
  }

  /** A live document by id in any brain the caller may access (ids are unique across brains). */
  async findById(caller: CallerContext, id: string): Promise<DocumentWithContent | null> {
    for (const brain of await this.listBrains(caller)) {
      const doc = await this.readLive(brain, { id });
      if (doc) return doc;
    }
    return null;
  }

  /**
   * A live document's current chunks (id and body), in order; empty when `documentId` is not a
   * live document of `brain`.
   */
  async chunksOf(brain: Brain, documentId: string): Promise<{ id: string; text: string }[]> {
    if (!(await this.findLive(brain, { id: documentId }))) return [];
    return await this.#ports.vectors.chunksOf(documentId);
  }

  /** Live documents under a path prefix, oldest first. */
  documentsUnder(brain: Brain, prefix: string): Promise<DocumentRecord[]> {
    return this.#ports.documents.listDocuments(brain.id, { prefix });
  }

  /** Live documents of a brain with their content, oldest first. */
  liveDocuments(brain: Brain): AsyncIterable<DocumentWithContent> {
    return this.#ports.documents.liveDocuments(brain.id);
  }
}

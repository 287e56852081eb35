/**
 * @module The SearchIndex port over PostgreSQL's full-text index: ranked search (recent results
 * cached until a change committed on any node moves the cache stamp, see notify.ts), re-chunking,
 * and the links and tags indexed beside the chunks (docs/architecture.md#postgresql-search).
 */
import type { Logger } from "../../core/logger.ts";
import type { SearchIndex } from "../../core/ports/search_index.ts";
import type {
  Backlink,
  ChunkInput,
  DocumentRecord,
  LinkInput,
  SearchHit,
  SearchQuery,
  TagCount,
} from "../../core/types.ts";
import { wikiKey } from "../../core/markdown/links.ts";
import { DEFAULT_SEARCH_CACHE_MB, SearchCache } from "../sqlite/search/search_cache.ts";
import type { PostgresConnection } from "./connection.ts";
import { writeIndex } from "./postgres_writes.ts";
import { Vocabulary } from "./search/vocabulary.ts";

/** Where the search cache's stamp comes from: it moves whenever any node commits a change. */
export interface CacheStamp {
  /** Different from every earlier value once anything a cached search read may have changed. */
  current(): string;
}

/** Options of the search index. */
export interface PostgresSearchOptions {
  /** The search cache's budget in MiB (0 turns the cache off). */
  searchCacheMb?: number;
  /** The cache stamp (notify.ts); without one nothing is cached, since no change would be seen. */
  stamp?: CacheStamp;
  /** Hears about word-list drains that failed (they are retried by the next one). */
  logger?: Logger;
}

/** The full-text index over one pool. */
export class PostgresSearchIndex implements SearchIndex {
  readonly #conn: PostgresConnection;
  readonly #searches: SearchCache;
  readonly #stamp: CacheStamp | undefined;
  readonly #vocabulary: Vocabulary;
  /** The ranking code, loaded by the first search, not at start-up. */
  #ranking?: Promise<typeof import("./search/chunk_search.ts")>;

  constructor(conn: PostgresConnection, options: PostgresSearchOptions = {}) {
    this.#conn = conn;
    this.#stamp = options.stamp;
    this.#searches = new SearchCache(
      (options.searchCacheMb ?? DEFAULT_SEARCH_CACHE_MB) * 1024 * 1024,
    );
    this.#vocabulary = new Vocabulary(conn.pool);
    const logger = options.logger ?? conn.logger;
    // The word list is brought up to date off the write path, after this node's own commits.
    conn.onCommitted((topics) => {
      if (!topics.has("documents")) return;
      this.#vocabulary.drainSoon((err) =>
        logger.warn("updating the search word list failed; the next search retries", {
          error: String(err),
        })
      );
    });
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    const { searchChunks } = await (this.#ranking ??= import("./search/chunk_search.ts"));
    const run = () => this.#conn.read((sql) => searchChunks(sql, query, this.#vocabulary));
    // Inside a unit of work a search may see writes that are later rolled back: never cached.
    if (!this.#searches.enabled || this.#stamp === undefined || this.#conn.inUnit) return run();
    // The stamp is read before the search: a change committed meanwhile leaves the entry stale
    // under an old stamp, never served.
    const stamp = this.#stamp.current();
    const hit = this.#searches.get(query, stamp);
    if (hit !== undefined) return hit;
    return this.#searches.set(query, stamp, await run());
  }

  replaceIndex(documentId: string, chunks: ChunkInput[], links: LinkInput[]): Promise<void> {
    return this.#conn.write(async (sql) => {
      this.#conn.touched("documents");
      // A forgotten document has no index: re-chunking must never bring it back into search. The
      // row is locked, so a forget on another node waits for this re-chunk or comes before it.
      const [row] = await sql<{ brain_id: string; title: string }[]>`
        SELECT brain_id, title FROM documents
         WHERE id = ${documentId} AND deleted_at IS NULL FOR UPDATE`;
      if (!row) return;
      await writeIndex(sql, { id: documentId, brainId: row.brain_id, title: row.title }, {
        chunks,
        links,
      });
    });
  }

  chunkCount(documentId: string): Promise<number> {
    return this.#conn.read(async (sql) => {
      const [{ n }] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM chunks WHERE document_id = ${documentId}`;
      return n;
    });
  }

  backlinks(brainId: string, target: DocumentRecord): Promise<Backlink[]> {
    const pathKey = wikiKey(target.path);
    const baseName = pathKey.split("/").pop() ?? pathKey;
    return this.#conn.read((sql) =>
      sql<Backlink[]>`
        SELECT d.id AS document_id, d.path, d.title, l.kind, l.text
          FROM links l JOIN documents d ON d.id = l.source_document_id
         WHERE l.brain_id = ${brainId} AND d.deleted_at IS NULL AND d.id <> ${target.id}
           AND (l.target_path = ${target.path}
                OR l.target_key IN (${target.title.toLowerCase()}, ${baseName})
                OR right(${"/" + pathKey}, length(l.target_key) + 1) = '/' || l.target_key)
         ORDER BY d.updated_at DESC, d.seq DESC`.then((rows) => [...rows])
    );
  }

  tags(brainId: string): Promise<TagCount[]> {
    return this.#conn.read((sql) =>
      sql<TagCount[]>`
        SELECT tag, count(*)::int AS count FROM document_tags WHERE brain_id = ${brainId}
         GROUP BY tag ORDER BY count DESC, tag`.then((rows) => [...rows])
    );
  }

  /** Stops the word list's background drains, waiting for the one under way. */
  close(): Promise<void> {
    return this.#vocabulary.close();
  }
}

/**
 * @module The SearchIndex port over SQLite FTS5: ranked search (with recent results cached until
 * the database changes), re-chunking, and the links and tags indexed beside the chunks.
 */
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
import { DEFAULT_SEARCH_CACHE_MB, SearchCache } from "./search/search_cache.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { backlinks, tagCounts } from "./sqlite_queries.ts";
import { writeIndex } from "./sqlite_writes.ts";

/** The full-text index over one connection. */
export class SqliteSearchIndex implements SearchIndex {
  readonly #conn: SqliteConnection;
  readonly #searches: SearchCache;
  /** The ranking code and its word lists, loaded by the first search, not at start-up. */
  #ranking?: Promise<typeof import("./search/chunk_search.ts")>;

  /** `options.searchCacheMb`: the search cache's budget in MiB (0 turns the cache off). */
  constructor(conn: SqliteConnection, options: { searchCacheMb?: number } = {}) {
    this.#conn = conn;
    this.#searches = new SearchCache(
      (options.searchCacheMb ?? DEFAULT_SEARCH_CACHE_MB) * 1024 * 1024,
    );
  }

  async search(query: SearchQuery): Promise<SearchHit[]> {
    const { searchChunks } = await (this.#ranking ??= import("./search/chunk_search.ts"));
    return await this.#conn.read(() => {
      const search = () => searchChunks(this.#conn, query);
      if (!this.#searches.enabled) return search();
      return this.#conn.throughCache(this.#searches, query, search)!;
    });
  }

  replaceIndex(documentId: string, chunks: ChunkInput[], links: LinkInput[]): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      // A forgotten document has no index: re-chunking must never bring it back into search.
      const row = this.#conn.prepare(
        "SELECT brain_id, title FROM documents WHERE id = ? AND deleted_at IS NULL",
      ).get(documentId) as { brain_id: string; title: string } | undefined;
      if (!row) return;
      writeIndex(this.#conn, { id: documentId, brainId: row.brain_id, title: row.title }, {
        chunks,
        links,
      });
    });
  }

  chunkCount(documentId: string): Promise<number> {
    return this.#conn.read(() =>
      (this.#conn.prepare("SELECT count(*) AS n FROM chunks WHERE document_id = ?")
        .get(documentId) as { n: number }).n
    );
  }

  backlinks(brainId: string, target: DocumentRecord): Promise<Backlink[]> {
    return this.#conn.read(() => backlinks(this.#conn, brainId, target));
  }

  tags(brainId: string): Promise<TagCount[]> {
    return this.#conn.read(() => tagCounts(this.#conn, brainId));
  }
}

/**
 * @module Recent search results, reused until the index changes.
 *
 * Agents repeat searches (the same recall at every turn, a team asking the same thing), and a
 * ranked FTS5 search with highlights costs milliseconds while a lookup costs microseconds. Entries
 * carry the stamp of the index they were computed from; any other stamp empties the cache, so a
 * stale hit is never served. The store builds the stamp from its own index writes and SQLite's
 * `data_version`, which changes when another connection (another process) commits.
 */
import type { SearchHit, SearchQuery } from "../../../core/types.ts";
import { deepFreeze, type ReadCache } from "../stamped_cache.ts";

/** Default budget of the cache in MiB (`storage.search_cache_mb`); 0 turns the cache off. */
export const DEFAULT_SEARCH_CACHE_MB = 16;

/** Estimated bytes of a hit beyond its strings: the object, ids, scores, dates. */
const HIT_OVERHEAD = 256;

interface Entry {
  hits: readonly SearchHit[];
  bytes: number;
}

/**
 * A least-recently-used map from search query to hits, bounded by the estimated size of the hits
 * (a count of searches would let a few long top_k results take far more memory than expected).
 */
export class SearchCache implements ReadCache<SearchQuery, SearchHit[]> {
  #budget: number;
  #bytes = 0;
  #entries = new Map<string, Entry>();
  #stamp = "";

  /** `budgetBytes`: the most the cached hits may take, estimated from their text. */
  constructor(budgetBytes: number) {
    this.#budget = budgetBytes;
  }

  /** Whether the cache keeps anything at all. */
  get enabled(): boolean {
    return this.#budget > 0;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Cached hits of `query` computed under `stamp`, as fresh copies, or undefined. */
  get(query: SearchQuery, stamp: string): SearchHit[] | undefined {
    if (stamp !== this.#stamp) {
      this.#restamp(stamp);
      return undefined;
    }
    const key = keyOf(query);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Re-inserting moves the entry to the young end of the map's insertion order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.hits.map((h) => ({ ...h }));
  }

  /** Remembers the hits of `query` under `stamp`; returns them for chaining. */
  set(query: SearchQuery, stamp: string, hits: SearchHit[]): SearchHit[] {
    const bytes = hits.reduce((n, h) => n + sizeOf(h), 0);
    if (bytes > this.#budget) return hits;
    if (stamp !== this.#stamp) this.#restamp(stamp);
    const key = keyOf(query);
    this.#drop(key);
    // Frozen so that a caller editing a hit's nested fields fails loudly instead of editing the
    // cache; top-level fields are copied on every get.
    this.#entries.set(key, { hits: hits.map((h) => deepFreeze({ ...h })), bytes });
    this.#bytes += bytes;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#budget) break;
      this.#drop(oldest);
    }
    return hits.map((h) => ({ ...h }));
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  #restamp(stamp: string): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.#stamp = stamp;
  }
}

/** UTF-16 code units × 2 of the strings a hit carries, plus a fixed overhead. */
function sizeOf(h: SearchHit): number {
  let chars = h.content.length + h.path.length + h.title.length + JSON.stringify(h.metadata).length;
  for (const s of h.highlights) chars += s.length;
  for (const s of h.heading_path) chars += s.length;
  return HIT_OVERHEAD + 2 * chars;
}

function keyOf(q: SearchQuery): string {
  return `${q.brainId}\u0000${q.scope}\u0000${q.sort}\u0000${q.topK}\u0000${q.text}`;
}

/** @module The queries one session searched for, most recent first, for completion suggestions. */

/** Queries kept per session. */
const MAX_QUERIES = 50;

/** A session's recent search queries. */
export class RecentQueries {
  #items: string[] = [];

  /** Records a query (moving a repeated one to the front). */
  add(query: string): void {
    const q = query.trim();
    if (!q) return;
    this.#items = [q, ...this.#items.filter((i) => i !== q)].slice(0, MAX_QUERIES);
  }

  /** The queries, most recent first. */
  list(): readonly string[] {
    return this.#items;
  }
}

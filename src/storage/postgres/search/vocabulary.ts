/**
 * @module The word list of the PostgreSQL index (`search_words`: every unstemmed word of the
 * chunks, with the number of chunks holding it), as SQLite's `chunks_words` vocabulary serves
 * prefix search and typo correction there.
 *
 * Chunk writes queue their words (search_schema.ts); `drain` moves the queue into the list, one
 * session of the whole cluster at a time. The list is drained in the background after this node's
 * own writes and, before it is read, up to the last committed write, so a word written a moment
 * ago can be a correction at once. The rules of prefix widening and of typo correction are
 * SQLite's (fts_candidates.ts, typo_correction.ts): the same limits, the same order.
 */
import type postgres from "postgres";
import { isFunctionWord } from "../../../core/search/query_plan.ts";
import { editDistance } from "../../../core/text/edit_distance.ts";
import { fold, indexForm } from "../../shared/search/term_match.ts";
import type { Queries } from "../connection.ts";

/** Queued changes moved per drain statement (one transaction each, so a drain never holds long). */
const DRAIN_BATCH = 500;
/** At most this many whole words widen one prefix term (Lucene's `max_expansions`). */
const PREFIX_WORDS = 16;
/** At most this many words of the list are read for one prefix term. */
const PREFIX_WORDS_READ = 256;
/** Letters of a mistyped word that must be right (Lucene's prefix length). */
const PREFIX_LENGTH = 3;
/** The most words of the list compared with one mistyped word. */
const MAX_WORDS_READ = 256;

/** The most typos allowed in a word of `length` letters (Meilisearch's defaults). */
function allowedTypos(length: number): number {
  return length >= 9 ? 2 : length >= 5 ? 1 : 0;
}

/** The word list of one pool, drained by one task of this process at a time. */
export class Vocabulary {
  readonly #pool: postgres.Sql;
  #draining: Promise<void> = Promise.resolve();
  #again = false;
  #background = false;
  #closed = false;

  /** `pool`: drains run on it, each a transaction of its own, never inside a unit of work. */
  constructor(pool: postgres.Sql) {
    this.#pool = pool;
  }

  /**
   * Drains the queue in the background (after this node committed chunk changes); a drain under
   * way runs once more instead of starting another. Failures are left to the next drain.
   */
  drainSoon(onError: (err: unknown) => void): void {
    if (this.#closed) return;
    if (this.#background) {
      this.#again = true;
      return;
    }
    this.#background = true;
    this.#draining = this.#draining.then(async () => {
      do {
        this.#again = false;
        try {
          await this.#drainAll(false);
        } catch (err) {
          if (!this.#closed) onError(err);
        }
      } while (this.#again && !this.#closed);
      this.#background = false;
    });
  }

  /**
   * Waits for this process's drain and drains what is left (waiting for another node's drain to
   * finish a batch first), so the list holds every committed chunk.
   */
  async drain(): Promise<void> {
    const previous = this.#draining;
    const mine = previous.then(() => this.#drainAll(true));
    this.#draining = mine.catch(() => {});
    await mine;
  }

  /** Stops background drains; waits for the one under way. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#draining.catch(() => {});
  }

  async #drainAll(wait: boolean): Promise<void> {
    while (!this.#closed) {
      const [{ taken }] = await this.#pool<{ taken: number }[]>`
        SELECT engram_drain_search_words(${DRAIN_BATCH}, ${wait}) AS taken`;
      if (taken < DRAIN_BATCH) return;
    }
  }
}

/**
 * The whole words a prefix starts with the chunks holding each, most frequent first: at most
 * PREFIX_WORDS, one per stem, and function words only when nothing else starts so
 * (fts_candidates.ts `prefixWords`).
 */
export async function prefixWords(
  sql: Queries,
  folded: string,
): Promise<{ word: string; docs: number }[]> {
  if (folded === "") return [];
  const rows = await sql<{ word: string; docs: number }[]>`
    SELECT word, docs FROM search_words
     WHERE word >= ${folded} AND word < ${folded + "\u{10FFFF}"} AND docs > 0
     ORDER BY word LIMIT ${PREFIX_WORDS_READ}`;
  const words = rows.filter((r) => r.word.startsWith(folded))
    .sort((a, b) => b.docs - a.docs)
    .map((r) => ({ word: r.word, docs: r.docs }));
  const content = words.filter((w) => !isFunctionWord(w.word));
  const stems = new Set<string>();
  return (content.length > 0 ? content : words).filter((w) => {
    const stem = indexForm(w.word);
    if (stems.has(stem)) return false;
    stems.add(stem);
    return true;
  }).slice(0, PREFIX_WORDS);
}

/**
 * The listed word nearest to `word` within its allowed typos (its first three letters right;
 * optimal string alignment distance; the most frequent among the nearest), or null
 * (typo_correction.ts `correction`).
 */
export async function correction(sql: Queries, word: string): Promise<string | null> {
  const folded = fold(word);
  const typos = allowedTypos([...folded].length);
  if (typos === 0) return null;
  const start = [...folded].slice(0, PREFIX_LENGTH).join("");
  const rows = await sql<{ word: string; docs: number }[]>`
    SELECT word, docs FROM search_words
     WHERE word >= ${start} AND word < ${start + "\u{10FFFF}"} AND docs > 0
     ORDER BY word LIMIT ${MAX_WORDS_READ}`;
  let best: { term: string; distance: number; doc: number } | null = null;
  for (const { word: term, docs } of rows) {
    if (Math.abs(term.length - folded.length) > typos) continue;
    const distance = editDistance(folded, term, { transpositions: true, limit: typos });
    if (distance > typos) continue;
    if (!best || distance < best.distance || (distance === best.distance && docs > best.doc)) {
      best = { term, distance, doc: docs };
    }
  }
  return best?.term ?? null;
}

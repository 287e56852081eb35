/**
 * @module Small read caches for values that rarely change (brains, token rows), valid while the
 * database stamp is unchanged. The stamp combines this connection's own writes with SQLite's
 * `data_version`, which moves whenever another connection (another process) commits.
 */

/**
 * `data_version` is read at most once per this many ms. Reading it starts a read transaction
 * (about a tenth of a cached call's CPU), and one request reads it up to three times (token,
 * brain, search) within a fraction of this. A commit by another process is therefore seen by
 * every read starting 0.2 ms after it: less than any process takes to report its commit to a
 * client and that client to reach this one.
 */
const DATA_VERSION_REUSE_MS = 0.2;

/** Counts this connection's relevant writes and reads `data_version` for everyone else's. */
export class DatabaseStamp {
  #writes = 0;
  #dataVersion: () => number;
  #version = 0;
  #readAt = -Infinity;
  #now: () => number;

  /**
   * `dataVersion` runs `PRAGMA data_version` on the connection the caches read through;
   * `options.now` is a monotonic clock in ms (tests pass their own).
   */
  constructor(dataVersion: () => number, options: { now?: () => number } = {}) {
    this.#dataVersion = dataVersion;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Records a write through this connection that cached reads may have seen. */
  bump(): void {
    this.#writes++;
  }

  /** Different from every earlier value once anything relevant was committed. */
  current(): string {
    const now = this.#now();
    if (now - this.#readAt >= DATA_VERSION_REUSE_MS) {
      this.#version = this.#dataVersion();
      this.#readAt = now;
    }
    return `${this.#writes}.${this.#version}`;
  }
}

/** A cache whose entries hold only while the stamp they were stored under is current. */
export interface ReadCache<K, V> {
  /** The value stored for `key` under `stamp`, or undefined. */
  get(key: K, stamp: string): V | undefined;
  /** Stores `value` under `stamp` and returns what the caller should use. */
  set(key: K, stamp: string, value: V): V;
}

/** A map whose entries are dropped together when the stamp moves; at most `limit` entries. */
export class StampedCache<V> implements ReadCache<string, V> {
  #stamp = "";
  #entries = new Map<string, V>();
  #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The value cached under `key` at `stamp`, or undefined. */
  get(key: string, stamp: string): V | undefined {
    if (stamp !== this.#stamp) {
      this.#entries.clear();
      this.#stamp = stamp;
      return undefined;
    }
    return this.#entries.get(key);
  }

  /** Caches `value` (frozen: shared by every later reader) and returns it. */
  set(key: string, stamp: string, value: V): V {
    if (stamp !== this.#stamp) {
      this.#entries.clear();
      this.#stamp = stamp;
    }
    if (this.#entries.size >= this.#limit) this.#entries.clear();
    this.#entries.set(key, deepFreeze(value));
    return value;
  }

  /** Drops everything. */
  clear(): void {
    this.#entries.clear();
  }
}

/** Freezes `value` and everything it holds, so a shared cached value cannot be edited. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

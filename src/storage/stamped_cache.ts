/**
 * @module Small read caches for values that rarely change (brains, token rows), valid while the
 * database stamp is unchanged. The stamp combines this connection's own writes with SQLite's
 * `data_version`, which moves whenever another connection (another process) commits.
 */

/** Counts this connection's relevant writes and reads `data_version` for everyone else's. */
export class DatabaseStamp {
  #writes = 0;
  #dataVersion: () => number;

  /** `dataVersion` runs `PRAGMA data_version` on the connection the caches read through. */
  constructor(dataVersion: () => number) {
    this.#dataVersion = dataVersion;
  }

  /** Records a write through this connection that cached reads may have seen. */
  bump(): void {
    this.#writes++;
  }

  /** Different from every earlier value once anything relevant was committed. */
  current(): string {
    return `${this.#writes}.${this.#dataVersion()}`;
  }
}

/** A map whose entries are dropped together when the stamp moves; at most `limit` entries. */
export class StampedCache<V> {
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

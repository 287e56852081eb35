/**
 * @module Requests per key per minute: a token bucket per key (a client id, a remote address).
 * With `maxBuckets` the table stays bounded however many keys ask.
 */

interface Bucket {
  tokens: number;
  at: number;
}

/** A per-key token bucket refilling `perMinute` tokens a minute, bursting up to `perMinute`. */
export class RateLimiter {
  #perMinute: number;
  #now: () => number;
  #maxBuckets: number;
  #buckets = new Map<string, Bucket>();

  /**
   * `options.maxBuckets`: buckets kept before full ones are dropped (then the least recently used);
   * unbounded when absent.
   */
  constructor(perMinute: number, options: { now?: () => number; maxBuckets?: number } = {}) {
    this.#perMinute = perMinute;
    this.#now = options.now ?? Date.now;
    this.#maxBuckets = options.maxBuckets ?? Infinity;
  }

  /** Takes one token for `key`: 0 when allowed, else the seconds to wait (for Retry-After). */
  take(key: string): number {
    const now = this.#now();
    const rate = this.#perMinute / 60_000;
    if (!this.#buckets.has(key) && this.#buckets.size >= this.#maxBuckets) this.#prune(now, rate);
    const bucket = this.#buckets.get(key) ?? { tokens: this.#perMinute, at: now };
    bucket.tokens = Math.min(this.#perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    // Re-inserted so the Map's order is least recently used first.
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
  }

  /** Drops buckets that have refilled (forgetting them changes nothing); if none has, the oldest. */
  #prune(now: number, rate: number): void {
    for (const [key, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * rate >= this.#perMinute) this.#buckets.delete(key);
    }
    // Every bucket is in use: the least recently touched goes (Map keeps insertion order).
    if (this.#buckets.size >= this.#maxBuckets) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
  }
}

/** @module Requests per client per minute: a token bucket per client id. */

interface Bucket {
  tokens: number;
  at: number;
}

/** A per-key token bucket refilling `perMinute` tokens a minute, bursting up to `perMinute`. */
export class RateLimiter {
  #perMinute: number;
  #now: () => number;
  #buckets = new Map<string, Bucket>();

  constructor(perMinute: number, options: { now?: () => number } = {}) {
    this.#perMinute = perMinute;
    this.#now = options.now ?? Date.now;
  }

  /** Takes one token for `key`: 0 when allowed, else the seconds to wait (for Retry-After). */
  take(key: string): number {
    const now = this.#now();
    const rate = this.#perMinute / 60_000;
    const bucket = this.#buckets.get(key) ?? { tokens: this.#perMinute, at: now };
    bucket.tokens = Math.min(this.#perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
  }
}

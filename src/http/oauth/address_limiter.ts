/**
 * @module Requests per remote address per minute for the OAuth endpoints anyone may call: the
 * per-key token bucket (rate_limit.ts) with its table bounded however many addresses ask.
 */
import { RateLimiter } from "../rate_limit.ts";

/** Buckets kept before full ones (idle for a minute) are dropped; a flood of addresses costs this much memory at most. */
const MAX_BUCKETS = 10_000;

/** A per-address token bucket refilling `perMinute` a minute, bursting up to `perMinute`. */
export class AddressLimiter extends RateLimiter {
  constructor(perMinute: number, options: { now?: () => number } = {}) {
    super(perMinute, { ...options, maxBuckets: MAX_BUCKETS });
  }
}

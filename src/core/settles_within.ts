/** @module Waiting for a promise with a bound: the timer is always cleared, so it never holds the process open. */

/**
 * Whether `promise` settles within `ms` milliseconds: true once it fulfils, false when the time runs
 * out first. A rejection of `promise` rejects the result.
 */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

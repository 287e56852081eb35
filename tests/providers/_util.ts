/** @module Helpers for the provider tests. */
import assert from "node:assert/strict";
import { EngramError, type ErrorCode } from "../../src/core/errors.ts";

/** Asserts that `promise` rejects with an EngramError of `code` whose message matches every pattern. */
export async function assertFails(
  promise: Promise<unknown>,
  code: ErrorCode,
  ...patterns: RegExp[]
): Promise<EngramError> {
  let caught: EngramError | undefined;
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected EngramError, got ${err}`);
    assert.equal(err.code, code, err.message);
    for (const pattern of patterns) assert.match(err.message, pattern);
    caught = err;
    return true;
  });
  return caught!;
}

/** Asserts that `promise` rejects with an AbortError (the default reason of an aborted signal). */
export async function assertAborted(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof DOMException, `expected DOMException, got ${err}`);
    assert.equal(err.name, "AbortError");
    return true;
  });
}

/** A loopback port nothing listens on (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Escapes a string for use inside a RegExp. */
export function literal(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
}

/**
 * Settles like `promise`, or fails after `ms`: a guard so that a broken timeout or abort fails
 * the test instead of hanging it. Not a wait; the timer is cleared either way.
 */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

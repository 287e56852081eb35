/**
 * @module Waiting on what an MCP SDK client receives (notifications, guarded by a timeout) and
 * reading a tool result's text. It imports nothing of engram, so tests of the fixtures alone can
 * use it without loading engram; tests/helpers.ts re-exports it.
 */
import type { z } from "zod";
import type { Client } from "../src/mcp/sdk_client.ts";

/** `promise`, or a rejection after `ms` — a guard so a missing event fails the test, not hangs it. */
export function withTimeout<T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Notifications of one kind as they arrive; `next()` waits for the next one not yet taken. */
export function collectNotifications<S extends Parameters<Client["setNotificationHandler"]>[0]>(
  client: Client,
  schema: S,
): { received: z.output<S>[]; next(): Promise<z.output<S>> } {
  const received: z.output<S>[] = [];
  const waiting: ((n: z.output<S>) => void)[] = [];
  let taken = 0;
  client.setNotificationHandler(schema, (n: z.output<S>) => {
    received.push(n);
    waiting.shift()?.(n);
  });
  return {
    received,
    next() {
      const index = taken++;
      if (index < received.length) return Promise.resolve(received[index]);
      return withTimeout(
        new Promise((resolve) => waiting.push(resolve)),
        `notification ${index + 1}`,
      );
    },
  };
}

/** The text of a tool result: its text contents, joined. */
export function resultText(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? "")
    .join("");
}

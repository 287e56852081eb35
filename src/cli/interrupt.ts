/**
 * @module Ctrl-C (SIGINT) and SIGTERM on a command that reaches upstream servers
 * (docs/upstream.md#transports-and-sessions): the signal aborts the command's AbortSignal, each
 * request in flight that was given it is cancelled upstream (`notifications/cancelled`), and the
 * command unwinds through its own `finally`, which closes its connections and so ends each
 * server's whole process group. The command then returns 130 or 143 (128 + the signal's number,
 * as shells report it); main.ts, the only place that exits, exits with it.
 */
import { EngramError } from "../core/errors.ts";
import type { CommandContext } from "./context.ts";

/** The signals that interrupt a command, and the exit code each ends it with. */
const SIGNAL_EXITS = { SIGINT: 130, SIGTERM: 143 } as const;

/** A signal that interrupts a command. */
export type InterruptSignal = keyof typeof SIGNAL_EXITS;

/**
 * Runs `fn` with an AbortSignal that aborts on SIGINT or SIGTERM, and returns its exit code. When
 * a signal came, whatever `fn` threw while unwinding is replaced by one line saying so, and the
 * code is the signal's. A second signal while unwinding is ignored: the unwinding is bounded by
 * the servers' stop grace.
 */
export async function untilInterrupted(
  ctx: CommandContext,
  fn: (signal: AbortSignal) => Promise<number>,
): Promise<number> {
  const controller = new AbortController();
  let received: InterruptSignal | null = null;
  const listeners = (Object.keys(SIGNAL_EXITS) as InterruptSignal[]).map((sig) => {
    const listener = () => {
      if (received) return;
      received = sig;
      controller.abort(`engram was interrupted (${sig})`);
    };
    Deno.addSignalListener(sig, listener);
    return { sig, listener };
  });
  try {
    return await fn(controller.signal);
  } catch (error) {
    if (!received) throw error;
    return interrupted(ctx, received);
  } finally {
    for (const { sig, listener } of listeners) Deno.removeSignalListener(sig, listener);
  }
}

/** The exit code of an interrupted command, after saying so on stderr. */
function interrupted(ctx: CommandContext, sig: InterruptSignal): number {
  ctx.out.warn(
    `interrupted by ${sig}: what was in flight was cancelled upstream and the servers were stopped`,
  );
  return SIGNAL_EXITS[sig];
}

/**
 * `work`, or — as soon as `signal` aborts — a rejection, for a step that takes no signal itself
 * (connecting: the launch and initialize). The caller's `finally` then closes what it started.
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function abortError(signal: AbortSignal): EngramError {
  return new EngramError("provider_unavailable", String(signal.reason ?? "aborted"));
}

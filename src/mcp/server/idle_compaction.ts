/**
 * @module One memory-reducing garbage collection once a stdio session has gone quiet after
 * start-up (docs/operations.md#deno-permissions-by-mode).
 *
 * Start-up leaves 4–5 MiB of dead objects in V8's old generation (module loading, building the
 * server, the first tools/list): the 1 MiB young generation promotes them, and no full collection
 * runs before the server sits idle, which is most of a stdio server's life. V8's own memory
 * reducer would compact them only 8 s or more after start-up, whatever the load; this does it
 * once, when the client has been quiet for a moment and no request is being handled. It needs
 * V8's `gc` (`--expose-gc`, in engram's launch flags); without it nothing happens.
 */
import type { Logger } from "../../core/logger.ts";

/** How long the client must have sent nothing before the collection runs. */
export const QUIET_MS = 1_000;

/** V8's `gc` as `--expose-gc` defines it. */
export type CollectGarbage = (options: {
  type: "major";
  execution: "sync";
  flavor: "last-resort";
}) => void;

/** V8's `gc`, when engram runs with `--expose-gc`. */
export function exposedGc(): CollectGarbage | undefined {
  return (globalThis as { gc?: CollectGarbage }).gc;
}

/** The timer functions the compaction waits with (injected by tests). */
export interface Timers {
  set(fn: () => void, ms: number): ReturnType<typeof setTimeout>;
  clear(id: ReturnType<typeof setTimeout>): void;
}

/** Options of {@link compactWhenQuiet}. */
export interface CompactionOptions {
  /** Whether a request is being handled: then the collection waits another quiet period. */
  busy: () => boolean;
  logger: Logger;
  quietMs?: number;
  /** V8's `gc` ({@link exposedGc}); undefined: nothing is ever collected. */
  collect: CollectGarbage | undefined;
  timers?: Timers;
}

/** The compaction of one session. */
export interface IdleCompaction {
  /** Client activity: the collection waits for a quiet period from now (until it has run). */
  touch(): void;
  /** Drops a pending collection (the session closed). */
  stop(): void;
}

const DEFAULT_TIMERS: Timers = {
  set: (fn, ms) => {
    const id = setTimeout(fn, ms);
    // A pending compaction never keeps the process alive.
    Deno.unrefTimer(id);
    return id;
  },
  clear: (id) => clearTimeout(id),
};

/**
 * Runs one full, memory-reducing collection `quietMs` after the last `touch()`, once; the first
 * `touch()` (the initialize reply) arms it.
 */
export function compactWhenQuiet(o: CompactionOptions): IdleCompaction {
  const collect = o.collect;
  const timers = o.timers ?? DEFAULT_TIMERS;
  const quietMs = o.quietMs ?? QUIET_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = collect === undefined;

  const run = () => {
    timer = undefined;
    if (done) return;
    if (o.busy()) {
      timer = timers.set(run, quietMs);
      return;
    }
    done = true;
    const before = Deno.memoryUsage();
    const started = performance.now();
    collect!({ type: "major", execution: "sync", flavor: "last-resort" });
    const after = Deno.memoryUsage();
    const mib = (n: number) => Math.round(n / 104857.6) / 10;
    o.logger.debug("heap compacted after start-up", {
      heap_mib: `${mib(before.heapTotal)} -> ${mib(after.heapTotal)}`,
      rss_mib: `${mib(before.rss)} -> ${mib(after.rss)}`,
      ms: Math.round(performance.now() - started),
    });
  };

  return {
    touch: () => {
      if (done) return;
      if (timer !== undefined) timers.clear(timer);
      timer = timers.set(run, quietMs);
    },
    stop: () => {
      done = true;
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
    },
  };
}

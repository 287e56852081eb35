/**
 * @module Live updates of the open pages on `/console/events` (docs/console.md#live-updates): new
 * document versions of a brain, from the memory service's change feed (this process's writes at
 * once, other processes' by the feed's timeline poll), and upstream servers' status changes, which
 * the stream itself looks for every few seconds. The page is pushed what changed; it never polls.
 * Before each event the session is checked again, so a sign-out or a revoked token ends the stream.
 */
import type { DocumentChange } from "../../core/change_feed.ts";
import { EngramError } from "../../core/errors.ts";
import type { Brain } from "../../core/types.ts";
import { SseWriter } from "../sse_writer.ts";
import type { ConsoleActor } from "./console_actor.ts";
import type { ConsoleParts, UpstreamServerView } from "./console_deps.ts";
import { type OpenStreams, sseEvent, sseResponse } from "./live_actions.ts";
import { docUrl } from "./pages_memory.ts";

/** How often a stream following the upstream servers reads their status, by default. */
export const UPSTREAM_POLL_MS = 2000;

/** A new version (or a forgetting) of a document, as the page gets it. */
export interface VersionEvent {
  document_id: string;
  path: string;
  title: string;
  version: number;
  action: DocumentChange["action"];
  /** When the console heard of it. */
  at: string;
  /** The document's page; null once forgotten. */
  href: string | null;
}

/** What the pages say of a server no connection recorded a status for. */
export const NO_STATUS = "none recorded";

/** An upstream server's status, as the page gets it when it changes. */
export interface UpstreamEvent {
  name: string;
  readiness: string;
  /** The readiness with the blocking rule, as the servers table words it. */
  status: string;
  last_status: string;
  fix: string;
}

/** What a stream follows. */
export interface WatchOptions {
  /** A brain whose new versions to send. */
  brain: Brain | null;
  /** Whether to send upstream status changes (admin tier). */
  upstreams: boolean;
  parts: ConsoleParts;
  keepAliveMs: number;
  streams: OpenStreams;
  /** Whether the session still stands (checked before each event). */
  alive: () => Promise<boolean>;
  pollMs?: number;
}

/** The upstream event of a server: its status words, compared to tell a change. */
export function upstreamEvent(s: UpstreamServerView): UpstreamEvent {
  return {
    name: s.name,
    readiness: s.readiness,
    status: s.blocked ? `${s.readiness}: ${s.blocked.rule} — ${s.blocked.detail}` : s.readiness,
    last_status: s.lastStatus ?? NO_STATUS,
    fix: s.blocked?.fix ?? "",
  };
}

/**
 * Follows a brain's new versions and/or the upstream servers' status until the reader goes away,
 * the session ends or the server shuts down. Audited once, as `console_events`.
 */
export async function watchEvents(actor: ConsoleActor, o: WatchOptions): Promise<Response> {
  const d = actor.deps;
  await actor.action("console_events", {
    tier: o.upstreams ? "admin" : "read",
    args: { brain: o.brain?.id ?? null, upstreams: o.upstreams },
    uses: o.brain ? "memory_timeline" : undefined,
  }, () => {
    if (!o.brain && !o.upstreams) {
      throw new EngramError(
        "invalid_argument",
        "name what to follow: /console/events?job=ID, ?brain=SLUG or ?upstreams=1",
      );
    }
    if (o.upstreams && !o.parts.upstreams) {
      throw new EngramError("not_implemented", "upstream servers are not available on this server");
    }
    return Promise.resolve();
  }, () => o.brain?.id);

  const stops: (() => void)[] = [];
  const stop = () => {
    for (const s of stops.splice(0)) s();
    o.streams.delete(handle);
    sse.close();
  };
  const sse = new SseWriter({ onCancel: stop });
  const handle = { close: stop };
  o.streams.add(handle);

  // Events go out one batch at a time, in order; the session is checked before each batch.
  let queue = Promise.resolve();
  const send = (make: () => Promise<[string, unknown][]>) => {
    queue = queue.then(async () => {
      if (sse.closed) return;
      const events = await make();
      if (events.length === 0 || sse.closed) return;
      if (!(await o.alive())) return stop();
      for (const [name, data] of events) sse.write(sseEvent(name, data));
    }).catch((err) => d.logger.warn("console event failed", { error: String(err) }));
  };

  if (o.brain) {
    const brain = o.brain;
    stops.push(d.service.changes.watch([brain.id]));
    stops.push(d.service.changes.listen((change) => {
      if (change.brainId !== brain.id) return;
      send(async () => [["version", await versionEvent(actor, brain, change)]]);
    }));
  }
  if (o.upstreams) {
    const upstreams = o.parts.upstreams!;
    const seen = new Map<string, string>();
    let reading = false;
    const read = () => {
      if (reading) return;
      reading = true;
      send(async () => {
        try {
          // The first reading goes out whole: the page may have been drawn before a change.
          const changed: [string, unknown][] = [];
          for (const s of await upstreams.servers()) {
            const e = upstreamEvent(s);
            const said = JSON.stringify(e);
            if (seen.get(s.name) === said) continue;
            seen.set(s.name, said);
            changed.push(["upstream", e]);
          }
          return changed;
        } finally {
          reading = false;
        }
      });
    };
    read();
    const poll = setInterval(read, o.pollMs ?? UPSTREAM_POLL_MS);
    stops.push(() => clearInterval(poll));
  }
  const keepAlive = setInterval(() => {
    if (sse.closed) return stop();
    if (Date.now() - sse.lastWrite < o.keepAliveMs) return;
    void o.alive().then((ok) => ok ? sse.keepAlive(o.keepAliveMs, Date.now()) : stop());
  }, Math.min(o.keepAliveMs, 5000));
  stops.push(() => clearInterval(keepAlive));
  return sseResponse(sse);
}

async function versionEvent(
  actor: ConsoleActor,
  brain: Brain,
  change: DocumentChange,
): Promise<VersionEvent> {
  const gone = change.action === "deleted";
  const doc = gone ? null : await actor.deps.service.findLive(brain, { id: change.documentId });
  return {
    document_id: change.documentId,
    path: change.path,
    title: doc?.title ?? change.path,
    version: change.version,
    action: change.action,
    at: new Date().toISOString(),
    href: gone ? null : docUrl(brain, change.documentId),
  };
}

/**
 * @module resources/subscribe and unsubscribe: `notifications/resources/updated` when a subscribed
 * document (by id or path), a brain's listing or the status changes — whether the change came from
 * this session, another session of this process, or (by the change feed's poll) another process.
 */
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "../session/mcp_protocol.ts";
import type { SessionServer } from "../session/session_server.ts";
import { EngramError } from "../../../core/errors.ts";
import type { DocumentChange } from "../../../core/change_feed.ts";
import type { Logger } from "../../../core/logger.ts";
import type { MemoryService } from "../../../core/memory_service.ts";
import type { Brain, CallerContext } from "../../../core/types.ts";
import { toMcpError } from "../mcp_errors.ts";
import { parseResourceUri, type ResourceTarget } from "./resource_uris.ts";
import { handleStrictly } from "../strict_handler.ts";

/** What subscriptions need. */
export interface SubscriptionDeps {
  service: MemoryService;
  caller: CallerContext;
  logger: Logger;
  /** The process's own log, never forwarded to the client: where internal error detail goes. */
  serverLogger: Logger;
}

/**
 * Registers subscribe/unsubscribe; returns the function that drops every subscription of the
 * session (call it when the session closes). Any URI may be subscribed to — one that names no
 * engram resource simply never changes.
 */
export function registerSubscriptions(server: SessionServer, deps: SubscriptionDeps): () => void {
  /** Match key → the URIs subscribed under it, as the client wrote them. */
  const subscribed = new Map<string, Set<string>>();
  const brains = new Map<string, Brain | null>();
  let stopListening: (() => void) | undefined;
  let stopWatching: (() => void) | undefined;

  const brainOf = async (id: string) => {
    if (!brains.has(id)) {
      // A brain this caller may not see is reported like a missing one: nothing to announce.
      brains.set(
        id,
        await deps.service.brain(deps.caller, id).catch((err) => {
          if (err instanceof EngramError && err.code === "no_brain") return null;
          throw err;
        }),
      );
    }
    return brains.get(id)!;
  };

  const onChange = async (change: DocumentChange) => {
    const brain = await brainOf(change.brainId);
    if (!brain) return;
    const uris = new Set<string>();
    for (const key of keysOf(change, brain)) {
      for (const uri of subscribed.get(key) ?? []) uris.add(uri);
    }
    for (const uri of uris) {
      server.sendResourceUpdated({ uri }).catch((err) =>
        deps.logger.debug("resource update not sent", { uri, error: String(err) })
      );
    }
  };

  const stop = () => {
    subscribed.clear();
    stopListening?.();
    stopWatching?.();
    stopListening = stopWatching = undefined;
  };

  handleStrictly(server, SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    const key = keyOf(parseResourceUri(uri), uri);
    subscribed.set(key, (subscribed.get(key) ?? new Set()).add(uri));
    stopListening ??= deps.service.changes.listen((c) =>
      void onChange(c).catch((err) =>
        deps.serverLogger.warn("change notification failed", { error: String(err) })
      )
    );
    if (!stopWatching && !key.startsWith("other:")) {
      // Other processes' changes are found by polling the brains this session may see.
      const brains = await deps.service.listBrains(deps.caller).catch((err) => {
        throw toMcpError(err, { serverLogger: deps.serverLogger, what: "resources/subscribe" });
      });
      const ids = brains.map((b) => b.id);
      stopWatching ??= deps.service.changes.watch(ids);
    }
    return {};
  });

  handleStrictly(server, UnsubscribeRequestSchema, (request) => {
    const { uri } = request.params;
    const key = keyOf(parseResourceUri(uri), uri);
    const uris = subscribed.get(key);
    uris?.delete(uri);
    if (uris?.size === 0) subscribed.delete(key);
    if (subscribed.size === 0) stop();
    return {};
  });

  return stop;
}

/** The key a subscription is matched under; brains as written in the URI (slug or id). */
function keyOf(target: ResourceTarget | null, uri: string): string {
  switch (target?.kind) {
    case "document":
      return `doc:${target.id}`;
    case "path":
      return `path:${target.brain}:${target.path}`;
    case "listing":
      return `listing:${target.brain}`;
    case "status":
      return "status";
    default:
      // Help, brains and search results do not follow document changes; unknown URIs never change.
      return `other:${uri}`;
  }
}

/** Every key a change touches: the document by id and by path (old and new), its listing, status. */
function keysOf(change: DocumentChange, brain: Brain): string[] {
  const paths = [change.path, ...(change.previousPath ? [change.previousPath] : [])];
  return [
    `doc:${change.documentId}`,
    "status",
    ...[brain.slug, brain.id].flatMap((b) => [
      `listing:${b}`,
      ...paths.map((p) => `path:${b}:${p}`),
    ]),
  ];
}

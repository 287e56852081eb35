/**
 * @module What an upstream lists now, as pins by kind and name: read when a call needs it, kept
 * for `relistMs` (an upstream may change a capability without saying so, or come back from a
 * restart with another version), forgotten when it says a list changed. Every read is recorded as
 * the server's sightings, all kinds at once (a sighting of one kind replaces the server's last),
 * so other processes and `engram mcp exposure` learn of a change (docs/upstream.md#exposure).
 */
import type { Logger } from "../../../core/logger.ts";
import type { ApprovalStore } from "../../../core/ports/approval_store.ts";
import { type CapabilityKind, pinListed, serverIdentity } from "../approvals/capability_pins.ts";
import type { CatalogEntry } from "../upstream_catalog.ts";
import type { UpstreamSession } from "../session/upstream_session.ts";

/** How long a listing is trusted by default: a silent change is caught within this. */
const RELIST_MS = 30_000;

/** What one server lists: the pin of each capability, by kind and name. */
export type LivePins = Record<CapabilityKind, Map<string, string>>;

/** What the listings need. */
export interface LiveListingDeps {
  /** The server entries, to know each one's identity. */
  catalog(): Promise<readonly CatalogEntry[]>;
  sightings: Pick<ApprovalStore, "recordSightings">;
  logger: Logger;
  /** How long what an upstream listed is trusted before a call reads it again (default 30 s). */
  relistMs?: number;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/** The last listing of each server. */
export class LiveListings {
  readonly #d: LiveListingDeps;
  readonly #live = new Map<string, { pins: LivePins; at: number }>();

  constructor(deps: LiveListingDeps) {
    this.#d = deps;
  }

  /** Forgets what `server` listed: the next call reads it again. */
  forget(server: string): void {
    this.#live.delete(server);
  }

  /** The pins of what `session`'s server lists (read again once forgotten or grown old). */
  async of(session: UpstreamSession): Promise<LivePins> {
    const now = this.#d.now ?? Date.now;
    const known = this.#live.get(session.name);
    if (known && now() - known.at < (this.#d.relistMs ?? RELIST_MS)) return known.pins;
    const entry = (await this.#d.catalog()).find((e) => e.config.name === session.name);
    const identity = await serverIdentity(entry?.config ?? session.server);
    const pins: LivePins = { tool: new Map(), prompt: new Map(), template: new Map() };
    const seen = [];
    // Tools first and on their own: a server whose prompts or templates cannot be listed still
    // runs its tools (its prompts and templates are then refused, and no sighting is recorded).
    let partial = false;
    const others = async <T extends object>(kind: string, list: () => Promise<T[]>) => {
      try {
        return await list();
      } catch (err) {
        partial = true;
        this.#d.logger.warn(`could not list an upstream's ${kind}`, {
          server: session.name,
          error: String(err),
        });
        return [];
      }
    };
    const listed: [CapabilityKind, object[]][] = [
      ["tool", await session.listTools()],
      ["prompt", await others("prompts", () => session.listPrompts())],
      ["template", await others("resource templates", () => session.listResourceTemplates())],
    ];
    for (const [kind, items] of listed) {
      for (const item of items) {
        const pinned = await pinListed(kind, item, identity);
        pins[kind].set(pinned.name, pinned.pin);
        seen.push({ kind, name: pinned.name, hash: pinned.pin, definition: pinned.definition });
      }
    }
    this.#live.set(session.name, { pins, at: now() });
    if (partial) return pins;
    await this.#d.sightings.recordSightings(session.name, seen, new Date().toISOString())
      .catch((err) =>
        this.#d.logger.warn("could not record what an upstream lists", { error: String(err) })
      );
    return pins;
  }
}
